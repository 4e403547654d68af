// Answers that come from below the routes, over real sockets: what Node's HTTP
// parser refuses, and what still arrives on an open connection while the server
// shuts down. Both must be RFC 6749 §5.2 JSON, as every other error is.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';

/** Writes `chunks` in turn (calling `between` after the first) and collects everything until the server closes. */
function exchange(port: number, chunks: string[], between?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => { received += data; });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(received) : reject(error)));
    socket.on('close', () => resolve(received));
    socket.on('connect', async () => {
      socket.write(chunks[0]!);
      if (chunks.length > 1) {
        await new Promise((wait) => setTimeout(wait, 100));
        between?.();
        await new Promise((wait) => setTimeout(wait, 100));
        for (const chunk of chunks.slice(1)) socket.write(chunk);
      }
    });
  });
}

/** The responses in a raw HTTP/1.1 stream: status, headers and body of each. */
function responses(raw: string): { status: number; headers: Record<string, string>; body: string }[] {
  const parsed = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headerEnd = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, headerEnd).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.slice(headerEnd + 4, headerEnd + 4 + length);
    parsed.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = rest.slice(headerEnd + 4 + length);
  }
  return parsed;
}

function assertOAuthJson(body: string, error: string) {
  const parsed = JSON.parse(body);
  assert.deepEqual(Object.keys(parsed).sort(), ['error', 'error_description']);
  assert.equal(parsed.error, error);
}

describe('answers from below the routes', () => {
  let t: TestApp;
  let port: number;
  beforeEach(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterEach(async () => { await t.close(); });

  it('a request the HTTP parser refuses gets 400 invalid_request, then the connection closes', async () => {
    const [answer] = responses(await exchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\nA header without a colon\r\n\r\n']));
    assert.equal(answer!.status, 400);
    assert.match(answer!.headers['content-type']!, /^application\/json/);
    assertOAuthJson(answer!.body, 'invalid_request');
  });

  it('headers beyond the size limit get 431 in the same shape', async () => {
    const [answer] = responses(await exchange(port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]));
    assert.equal(answer!.status, 431);
    assertOAuthJson(answer!.body, 'invalid_request');
  });

  it('during shutdown, the request in flight gets its real answer and one behind it on the same connection 503 temporarily_unavailable', async () => {
    const body = 'grant_type=client_credentials&client_id=nobody';
    const head = `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`;
    let closing: Promise<void> | undefined;
    const raw = await exchange(port, [head + body.slice(0, 10), body.slice(10), 'GET /api/v2/portfolios.json HTTP/1.1\r\nHost: x\r\n\r\n'], () => {
      closing = t.app.close();
    });
    await closing;
    const [inFlight, behind] = responses(raw);
    assert.equal(inFlight!.status, 401);
    assertOAuthJson(inFlight!.body, 'invalid_client');
    assert.equal(behind!.status, 503);
    assert.equal(behind!.headers['retry-after'], '5');
    assert.equal(behind!.headers.connection, 'close');
    assertOAuthJson(behind!.body, 'temporarily_unavailable');
  });
});
