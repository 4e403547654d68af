// Fuzz (issue #7): random and malformed requests at every route, with and
// without real credentials. Whatever arrives, no answer is a 5xx and the server
// still answers afterwards. Three parts:
//   1. properties over app.inject (fast-check shrinks a failure to a small request);
//   2. the same requests over real HTTP to the server process;
//   3. raw sockets, for what inject skips: Node's HTTP parser, huge headers,
//      truncated and lying bodies, garbage bytes.
// `npm test` runs a quick version; `npm run fuzz` sends FOLIO_FUZZ_REQUESTS
// (100,000) over HTTP. FOLIO_FUZZ_SEED replays a run.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { createClient, createUser, obtainTokens, signIn, cookieHeader, type TestApp } from '../support/app.ts';
import { createTestStorage } from '../support/storage.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { type FuzzCredentials, type FuzzRequest, fuzzRequests } from './fuzz-requests.ts';
import { Browser, PASSWORD, REDIRECT_URI, clientCredentials, hiddenFields, redeemCode, report } from './support.ts';

const HTTP_REQUESTS = Number(process.env.FOLIO_FUZZ_REQUESTS ?? 400);
const INJECT_RUNS = Number(process.env.FOLIO_FUZZ_INJECT_RUNS ?? 1500);
const RANDOM_RAW = Number(process.env.FOLIO_FUZZ_RAW ?? 100);
const SEED = process.env.FOLIO_FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FOLIO_FUZZ_SEED);
const LONG = HTTP_REQUESTS > 10_000;

type Histogram = Record<string, number>;
const tally = (histogram: Histogram, key: string | number) => { histogram[key] = (histogram[key] ?? 0) + 1; };
const serverErrors = (histogram: Histogram) => Object.entries(histogram).filter(([status]) => /^5/.test(status)).reduce((n, [, count]) => n + count, 0);

/** A 5xx, or an error answer that is not the JSON or HTML it says it is. */
function problem(status: number, contentType: string | undefined, body: string, method: string): string | undefined {
  if (status >= 500) return `status ${status}: ${body.slice(0, 300)}`;
  if (method !== 'HEAD' && status >= 400 && contentType?.startsWith('application/json')) {
    try {
      const parsed = JSON.parse(body) as { error?: unknown; jsonrpc?: unknown };
      // /mcp speaks JSON-RPC 2.0 (§5.1): its transport errors carry a numeric code in an error object.
      const jsonRpcCode = parsed.jsonrpc === '2.0' && typeof (parsed.error as { code?: unknown } | undefined)?.code === 'number';
      if (typeof parsed.error !== 'string' && !jsonRpcCode) return `JSON error without an error code: ${body.slice(0, 200)}`;
    } catch {
      return `unparseable JSON: ${body.slice(0, 200)}`;
    }
  }
  return undefined;
}

describe('fuzz', () => {
  describe('through app.inject', () => {
    let app: FastifyInstance;
    let storage: OpenedStorage;
    const routes = new Set<string>();
    let credentials: FuzzCredentials;

    before(async () => {
      storage = await createTestStorage();
      const config = loadConfig({ FOLIO_LOG_LEVEL: 'silent', FOLIO_BASE_URL: 'http://folio.test', FOLIO_RATE_LIMIT_PER_MINUTE: '1000000' });
      app = await buildApp({
        config, storage, clock: systemClock, random: cryptoRandom, logger: createLogger(config),
        onRoute: (route) => { routes.add(route.url); },
      });
      const t = { app, storage, clock: systemClock, baseUrl: config.baseUrl } as unknown as TestApp;
      const user = await createUser(t);
      const client = await createClient(t, user);
      const tokens = await obtainTokens(t, client, user);
      const jar = await signIn(t, user);
      const page = await app.inject({ method: 'GET', url: '/settings/applications/new', headers: { cookie: cookieHeader(jar) } });
      credentials = {
        clientId: client.clientId, clientSecret: client.clientSecret, accessToken: tokens.access_token, refreshToken: tokens.refresh_token,
        cookie: cookieHeader(jar), csrfToken: hiddenFields(page.body).csrf_token ?? '', email: user.email,
      };
    });
    after(async () => {
      await app.close();
      await storage.close();
    });

    it('answers every random request below 500, in the shape it claims', { timeout: 600_000 }, async () => {
      const histogram: Histogram = {};
      let sent = 0;
      await fc.assert(fc.asyncProperty(fuzzRequests([...routes], credentials), async (request) => {
        sent++;
        const response = await app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.body });
        tally(histogram, response.statusCode);
        const found = problem(response.statusCode, response.headers['content-type'] as string | undefined, response.body, request.method);
        if (found !== undefined) throw new Error(found);
      }), { numRuns: INJECT_RUNS, seed: SEED });
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      report('fuzz (inject)', { seed: SEED, routes: routes.size, requests: sent, server_errors: serverErrors(histogram), statuses: histogram });
    });
  });

  describe('through the server process', () => {
    let server: ServerProcess;
    let credentials: FuzzCredentials;
    let port: number;
    const routes = new Set<string>();

    before(async () => {
      let client = { client_id: '', client_secret: '' };
      server = await startServerProcess((folio) => {
        folio('user', 'create', '--email', 'fuzz@example.test', '--password', PASSWORD);
        client = JSON.parse(folio('app', 'create', '--owner', 'fuzz@example.test', '--name', 'Fuzz', '--redirect-uri', REDIRECT_URI, '--json'));
      }, { env: { FOLIO_RATE_LIMIT_PER_MINUTE: '1000000' } });
      port = Number(new URL(server.baseUrl).port);
      const browser = new Browser(server.baseUrl);
      await browser.signIn('fuzz@example.test');
      const tokens = await redeemCode(server.baseUrl, client, await browser.authorize(client.client_id));
      const page = await browser.request('/settings/applications/new');
      credentials = {
        clientId: client.client_id, clientSecret: client.client_secret, accessToken: tokens.body.access_token!, refreshToken: tokens.body.refresh_token!,
        cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '), csrfToken: hiddenFields(await page.text()).csrf_token ?? '', email: 'fuzz@example.test',
      };
      // Every route the server has: the same app, built here only to list them.
      const config = loadConfig({ FOLIO_LOG_LEVEL: 'silent' });
      const storage = await createTestStorage();
      const lister = await buildApp({ config, storage, clock: systemClock, random: cryptoRandom, logger: createLogger(config), onRoute: (route) => { routes.add(route.url); } });
      await lister.close();
      await storage.close();
    });
    after(() => server?.cleanup());

    // A connection per request, so that a dropped connection is this request's and no other's.
    it(`answers ${HTTP_REQUESTS} random requests over HTTP below 500`, { timeout: 3_600_000 }, async () => {
      const histogram: Histogram = {};
      const problems: string[] = [];
      let unsendable = 0;
      // About one in ten has a path Node's client will not send: sample spares, stop at HTTP_REQUESTS sent.
      const requests = fc.sample(fuzzRequests([...routes], credentials), { numRuns: Math.ceil(HTTP_REQUESTS * 1.25), seed: SEED });
      let sent = 0;
      let reserved = 0;
      const started = performance.now();
      let next = 0;
      /** Resolves true once answered (or dropped), false if Node's client would not send it. */
      const send = (request: FuzzRequest) => new Promise<boolean>((resolve) => {
        // Node itself drops CONNECT (no tunnel here) and answers an oversized head with
        // 431 and a closed socket; any other connection dropped without an answer is a failure.
        const byNode = request.method === 'CONNECT' || request.url.length + JSON.stringify(request.headers).length > 16_000;
        let settled = false;
        const settle = (outcome: string | number) => {
          if (settled) return;
          settled = true;
          tally(histogram, outcome);
          resolve(true);
        };
        let outgoing;
        try {
          // Node's client frames a DELETE or OPTIONS body only when told its length.
          const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(request.body.length) };
          outgoing = httpRequest({ host: '127.0.0.1', port, agent: false, method: request.method, path: request.url, headers }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const status = response.statusCode ?? 0;
              const found = problem(status, response.headers['content-type'], Buffer.concat(chunks).toString('utf8'), request.method);
              if (found !== undefined) problems.push(`${request.method} ${request.url.slice(0, 120)}: ${found}`);
              settle(status);
            });
            response.on('error', () => settle(`aborted after ${response.statusCode}`));
          });
        } catch {
          // Node's client refuses to send it (a character no HTTP path may hold).
          unsendable++;
          resolve(false);
          return;
        }
        outgoing.on('error', (error: NodeJS.ErrnoException) => settle(byNode ? 'closed by node' : `connection error ${error.code}`));
        // The catch-all: a CONNECT answered without a tunnel ends with neither a response nor an error.
        outgoing.on('close', () => setImmediate(() => settle(byNode ? 'closed by node' : `connection error closed without an answer (${request.method})`)));
        outgoing.end(request.body);
      });
      await Promise.all(Array.from({ length: LONG ? 32 : 8 }, async () => {
        while (reserved < HTTP_REQUESTS && next < requests.length) {
          reserved++;
          if (!(await send(requests[next++]!))) {
            reserved--;
            continue;
          }
          if (++sent % 10_000 === 0 && LONG) console.log(`[reliability] fuzz (http): ${sent} sent, ${serverErrors(histogram)} server errors`);
        }
      }));
      const seconds = (performance.now() - started) / 1000;
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
      assert.equal(server.child.exitCode, null);
      report('fuzz (http)', {
        seed: SEED, routes: routes.size, requests: sent, unsendable_by_node_client: unsendable,
        server_errors: serverErrors(histogram), per_second: Math.round(sent / seconds), statuses: histogram,
      });
      assert.deepEqual(problems.slice(0, 10), []);
      assert.equal(sent, HTTP_REQUESTS);
      assert.deepEqual(Object.keys(histogram).filter((key) => key.startsWith('connection error')), []);
    });

    it('survives raw bytes, huge headers and lying or truncated bodies on the socket', { timeout: 600_000 }, async () => {
      const token = (await clientCredentials(server.baseUrl, { client_id: credentials.clientId, client_secret: credentials.clientSecret })).body.access_token!;
      const form = `grant_type=client_credentials&client_id=${credentials.clientId}&client_secret=${credentials.clientSecret}`;
      const crafted: [string, string | Buffer, boolean][] = [
        ['a 100 KB header', `GET /api/v2/portfolios HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`, true],
        ['a 100 KB URL', `GET /api/v2/portfolios?${'a='.repeat(50_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, true],
        ['2,000 headers', `GET / HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 2000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`, true],
        ['a 100 KB bearer token', `GET /api/v2/my_user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'A'.repeat(100_000)}\r\n\r\n`, true],
        ['a body shorter than its Content-Length, then close', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n${form}`, false],
        ['a truncated multipart body, then close', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 400\r\n\r\n--B\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_cre`, false],
        ['a truncated multipart body with an honest length', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 59\r\n\r\n--B\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclie`, true],
        ['a Content-Length that is not a number', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`, true],
        ['two different Content-Lengths', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef`, true],
        ['Content-Length with chunked', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, true],
        ['broken chunked encoding', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, true],
        ['a 10 MB chunked body', `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n${`100000\r\n${'a'.repeat(0x100000)}\r\n`.repeat(10)}0\r\n\r\n`, false],
        ['a NUL in the request line', `GET /api/v2/\0portfolios HTTP/1.1\r\nHost: x\r\n\r\n`, true],
        ['a header without a colon', `GET / HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n`, true],
        ['an unknown HTTP version', `GET / HTTP/9.9\r\nHost: x\r\n\r\n`, true],
        ['HTTP/1.0 without Host', `GET /healthz HTTP/1.0\r\n\r\n`, true],
        ['a bare LF request', `GET /healthz HTTP/1.1\nHost: x\n\n`, true],
        ['invalid UTF-8 in the path', Buffer.concat([Buffer.from('GET /api/v2/portfolios/'), Buffer.from([0xff, 0xfe]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]), true],
        ['invalid UTF-8 in a header', Buffer.concat([Buffer.from(`GET /api/v2/my_user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer `), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('\r\n\r\n')]), true],
        ['a pipelined valid and garbage request', `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n\x01\x02\x03 garbage\r\n\r\n`, true],
        ['a request cut inside the headers', `GET /api/v2/my_user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token.slice(0, 20)}`, false],
        ['a request with a valid token and a lying length', `GET /api/v2/my_user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 99\r\n\r\n{}`, false],
      ];
      const outcomes: Record<string, string> = {};
      const statusLines: Histogram = {};
      for (const [label, bytes, expectAnswer] of crafted) {
        const answer = await rawExchange(port, bytes, expectAnswer ? 10_000 : 300);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 'no answer';
        outcomes[label] = status;
        tally(statusLines, status);
        assert.ok(!status.startsWith('5'), `${label}: ${answer.slice(0, 300)}`);
        if (expectAnswer) assert.notEqual(status, 'no answer', `${label}: the server should say something`);
      }
      for (const bytes of fc.sample(fc.uint8Array({ minLength: 1, maxLength: 2000 }), { numRuns: RANDOM_RAW, seed: SEED })) {
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(await rawExchange(port, Buffer.from(bytes), 300))?.[1] ?? 'no answer';
        tally(statusLines, status);
        assert.ok(!status.startsWith('5'), `random bytes got ${status}`);
      }
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
      assert.equal(server.child.exitCode, null);
      report('fuzz (raw socket)', { crafted: crafted.length, random_byte_strings: RANDOM_RAW, server_errors: serverErrors(statusLines), statuses: statusLines });
      report('fuzz (raw socket) crafted', outcomes);
    });
  });
});

/** Writes `bytes`, half-closes, and returns whatever comes back within `waitMs` of the last byte. */
function rawExchange(port: number, bytes: string | Buffer, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    // However the server behaves (it may stop reading a huge body), the exchange ends.
    const deadline = setTimeout(() => finish(), 15_000);
    const finish = () => { clearTimeout(timer); clearTimeout(deadline); socket.destroy(); resolve(answer); };
    const arm = () => { clearTimeout(timer); timer = setTimeout(finish, waitMs); };
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('latin1'); arm(); });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => socket.end(bytes, arm));
  });
}
