// Baseline: the least a Fastify route can do to answer the bearer API for real.
// It hashes the token, looks it up in Folio's SQLite file, checks that it is
// live, reads the owner's portfolios and returns them as stored, through
// better-sqlite3 directly: no Kysely, no checksum, no scope, no rate limit, no
// logging, no metrics, no security headers, no response schema. The distance from
// the bare route to this one is what the two reads cost on their own.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const [port, databaseFile] = process.argv.slice(2);
const database = new Database(databaseFile, { fileMustExist: true });
const tokenByHash = database.prepare('select user_id, expires_at, revoked_at from access_tokens where token_hash = ?');
const portfoliosOf = database.prepare('select * from portfolios where owner_id = ? order by id');
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;
// The stored form, as src/platform/secrets.ts's hashCredential makes it: an access
// token that carries its issue time (8 characters after the 9 of "folio_at_", 66 in
// all) is stored under that time in hex, then the token's SHA-256.
const TIMED_TOKEN_LENGTH = 66;
const storedFormOf = (token) => (token.length === TIMED_TOKEN_LENGTH ? Buffer.from(token.slice(9, 17), 'base64url').toString('hex') : '')
  + createHash('sha256').update(token).digest('hex');

const app = Fastify({ logger: false });
app.get('/api/v2/portfolios.json', async (request, reply) => {
  const match = BEARER.exec(request.headers.authorization ?? '');
  const token = match && tokenByHash.get(storedFormOf(match[1]));
  if (!token || token.revoked_at !== null || token.expires_at <= Date.now()) {
    return reply.code(401).send({ error: 'invalid_token' });
  }
  return { portfolios: portfoliosOf.all(token.user_id), links: { self: '/api/v2/portfolios' } };
});
app.get('/readyz', async () => ({ status: 'ready' }));
await app.listen({ host: '127.0.0.1', port: Number(port) });
