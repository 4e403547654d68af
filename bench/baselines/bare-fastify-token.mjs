// Baseline: the least a Fastify route can do to answer a token request. One POST
// route that reads the form body and answers a token response of the shape and
// size Folio's client_credentials answer has, with its no-store headers, and
// nothing else: no client authentication, no token made or stored, no logging.
// It bounds what any token endpoint served by Fastify on this core can reach, so
// the token rows' distance from it is the work of issuing a token.
import { parse } from 'node:querystring';
import Fastify from 'fastify';

const [port] = process.argv.slice(2);
// As long as Folio's access tokens: the prefix, the issue time and 256 random bits with a checksum.
const ACCESS_TOKEN = `folio_at_${'A'.repeat(57)}`;

const app = Fastify({ logger: false });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, parse(body)));
app.post('/oauth2/token', async (_request, reply) => {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return { access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 1800, created_at: Math.floor(Date.now() / 1000) };
});
app.get('/readyz', async () => ({ status: 'ready' }));
await app.listen({ host: '127.0.0.1', port: Number(port) });
