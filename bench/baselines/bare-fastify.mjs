// Baseline: the least a Node HTTP server can do for the bearer API's answer.
// One Fastify route returning Folio's portfolio list body (read from a file),
// no authentication, no database, no logging.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [port, bodyFile] = process.argv.slice(2);
const body = JSON.parse(readFileSync(bodyFile, 'utf8'));
const app = Fastify({ logger: false });
app.get('/api/v2/portfolios.json', async () => body);
app.get('/readyz', async () => ({ status: 'ready' }));
await app.listen({ host: '127.0.0.1', port: Number(port) });
