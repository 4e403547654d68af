import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startIssuing } from '../../bench/issuing.mjs';

interface Seen { method: string; contentLength: string | undefined; body: string }

/** A server that answers 200 to everything and remembers what it was sent. */
async function recordingServer() {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => { body += chunk; });
    request.on('end', () => {
      seen.push({ method: request.method!, contentLength: request.headers['content-length'], body });
      response.writeHead(200, { 'content-length': '2' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the token requests bench/issuing.mjs sends beside a load', () => {
  it('POSTs the body with its Content-Length, and counts the 2xx answers', async () => {
    const server = await recordingServer();
    try {
      const posting = startIssuing({ url: server.url, path: '/token', headers: { 'content-type': 'text/plain' }, body: 'grant', perSecond: 100 });
      await new Promise((resolve) => setTimeout(resolve, 120));
      const posted = await posting.stop();

      assert.ok(posted.issued > 0, `posted ${posted.issued}`);
      assert.deepEqual(posted.refused, []);
      assert.equal(server.seen.length, posted.issued);
      for (const request of server.seen) assert.deepEqual(request, { method: 'POST', contentLength: '5', body: 'grant' });
    } finally {
      await server.close();
    }
  });
});
