// The MCP endpoint at /mcp (MCP 2025-11-25 basic/transports): the Streamable
// HTTP transport in stateless mode, with bearer tokens, scope, rate limit and
// error bodies as on /api/v2, and the Origin check against DNS rebinding.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  TEST_PASSWORD_COST, type TestApp, type TestClient, assertError, bearer, createClient, createTestApp, createUser, obtainTokens,
} from '../support/app.ts';
import { ACCEPT, type JsonRpcAnswer, type ToolCallResult, obtainMcpToken, post, rpc } from '../support/mcp.ts';
import { createTestStorage } from '../support/storage.ts';

const BASE = 'http://folio.test';

function assertBearerChallenge(response: LightMyRequestResponse, error: string | null) {
  const header = response.headers['www-authenticate'];
  assert.equal(typeof header, 'string', 'WWW-Authenticate is present');
  assert.match(header as string, /^Bearer /);
  if (error === null) assert.doesNotMatch(header as string, /error=/);
  else assert.match(header as string, new RegExp(`error="${error}"`));
}

describe('MCP endpoint /mcp', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let token: string;

  beforeEach(async () => {
    t = await createTestApp({ FOLIO_RATE_LIMIT_PER_MINUTE: '20' });
    user = await createUser(t, 'Ada Investor');
    client = await createClient(t, user, { name: 'Claude Desktop' });
    token = await obtainMcpToken(t, client, user);
  });

  afterEach(async () => {
    await t.close();
  });

  describe('authentication and limits, as on /api/v2', () => {
    it('refuses a request without a token: 401 with a Bearer challenge and no error code', async () => {
      const response = await post(t, null, rpc('tools/list'));
      assertError(response, 401, 'invalid_token');
      assertBearerChallenge(response, null);
    });

    it('refuses an unknown token: 401 invalid_token', async () => {
      const response = await post(t, `${token.slice(0, -4)}AAAA`, rpc('tools/list'));
      assertError(response, 401, 'invalid_token');
      assertBearerChallenge(response, 'invalid_token');
    });

    it('refuses a token not issued for /mcp: 401 invalid_token naming its resource metadata', async () => {
      const apiToken = (await obtainTokens(t, client, user)).access_token;
      const response = await post(t, apiToken, rpc('tools/list'));
      assertError(response, 401, 'invalid_token');
      assertBearerChallenge(response, 'invalid_token');
      assert.match(String(response.headers['www-authenticate']), new RegExp(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`));
      assertError(await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(token) }), 401, 'invalid_token');
    });

    it('refuses a token in the query string', async () => {
      const response = await t.app.inject({
        method: 'POST', url: `/mcp?access_token=${token}`, headers: { accept: ACCEPT, 'content-type': 'application/json' }, payload: JSON.stringify(rpc('tools/list')),
      });
      assertError(response, 400, 'invalid_request');
    });

    it('refuses a token without the read scope: 403 insufficient_scope', async () => {
      const stored = (await t.storage.tokens.findAccessToken(hashCredential(token)))!;
      const scopeless = generateCredential('accessToken', cryptoRandom);
      await t.storage.tokens.saveTokens({ access: { ...stored, tokenHash: hashCredential(scopeless), scope: [] } });
      const response = await post(t, scopeless, rpc('tools/list'));
      assertError(response, 403, 'insufficient_scope');
      assertBearerChallenge(response, 'insufficient_scope');
    });

    it('counts tool calls against the same per-application-and-user limit as /api/v2: 429 with Retry-After', async () => {
      // /api/v2 takes a token of the same application and user, issued for it.
      const apiToken = (await obtainTokens(t, client, user)).access_token;
      for (let i = 0; i < 10; i++) assert.equal((await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(apiToken) })).statusCode, 200);
      for (let i = 0; i < 10; i++) assert.equal((await post(t, token, rpc('tools/list'))).statusCode, 200);
      const refused = await post(t, token, rpc('tools/list'));
      assertError(refused, 429, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(apiToken) })).statusCode, 429);
      t.clock.advance(60_000);
      assert.equal((await post(t, token, rpc('tools/list'))).statusCode, 200);
    });
  });

  describe('transport', () => {
    it('answers malformed JSON with 400 and a JSON-RPC parse error', async () => {
      for (const body of ['{"jsonrpc": "2.0", "id": 1, "method":', '', '\xff\xfe']) {
        const response = await post(t, token, body);
        assert.equal(response.statusCode, 400, response.body);
        const answer = response.json() as JsonRpcAnswer;
        assert.equal(answer.error!.code, -32700);
        assert.equal(answer.id, null);
      }
    });

    it('answers JSON that is not a JSON-RPC message with 400', async () => {
      const response = await post(t, token, { hello: 'world' });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal((response.json() as JsonRpcAnswer).jsonrpc, '2.0');
    });

    it('refuses a JSON-RPC batch, which MCP 2025-06-18 removed, with 400', async () => {
      const response = await post(t, token, [rpc('tools/list'), rpc('tools/list')]);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal((response.json() as JsonRpcAnswer).error!.code, -32600);
    });

    it('answers a request that is not valid for its method with a JSON-RPC error, not a 500', async () => {
      for (const params of [undefined, { name: 'get_portfolio', arguments: 'seven' }, { name: 'get_portfolio', arguments: { id: { nested: [1] } } }]) {
        const response = await post(t, token, { jsonrpc: '2.0', id: 9, method: 'tools/call', ...(params === undefined ? {} : { params }) });
        assert.ok(response.statusCode < 500, response.body);
        const answer = response.json() as JsonRpcAnswer;
        const refused = answer.error !== undefined || (answer.result as unknown as ToolCallResult).isError === true;
        assert.ok(refused, response.body);
      }
    });

    it('refuses a body over the size limit with 413', async () => {
      const response = await post(t, token, rpc('tools/list', { padding: 'x'.repeat(100_000) }));
      assertError(response, 413, 'payload_too_large');
    });

    it('refuses a body that is not JSON with 415', async () => {
      const response = await post(t, token, 'method=tools/list', { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(response.statusCode, 415, response.body);
      assert.equal((response.json() as JsonRpcAnswer).jsonrpc, '2.0');
    });

    it('refuses a client that does not accept both JSON and an event stream with 406', async () => {
      const response = await post(t, token, rpc('tools/list'), { accept: 'application/json' });
      assert.equal(response.statusCode, 406, response.body);
    });

    it('refuses an Origin other than its own with 403 before looking at the token', async () => {
      for (const origin of ['https://evil.example', 'null', 'http://folio.test:8080']) {
        const response = await post(t, null, rpc('tools/list'), { origin });
        assert.equal(response.statusCode, 403, origin);
        assert.equal((response.json() as JsonRpcAnswer).error!.code, -32000);
      }
      assert.equal((await post(t, token, rpc('tools/list'), { origin: BASE })).statusCode, 200);
    });

    it('keeps no session: after initialize on one instance, another over the same database answers a tool call', async () => {
      const other = await createTestApp({}, { storage: t.storage });
      try {
        const initialized = await post(t, token, rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lb', version: '1' } }));
        assert.equal(initialized.statusCode, 200);
        const call = await post(other, token, rpc('tools/call', { name: 'get_my_user', arguments: {} }), { 'mcp-protocol-version': '2025-11-25' });
        assert.equal(call.statusCode, 200, call.body);
        assert.equal(((call.json() as JsonRpcAnswer).result as unknown as ToolCallResult).isError, undefined);
      } finally {
        await other.close();
      }
    });

    it('answers GET and DELETE with 405 and Allow: POST (no stream, no session)', async () => {
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await t.app.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream', ...bearer(token) } });
        assertError(response, 405, 'method_not_allowed');
        assert.equal(response.headers.allow, 'POST');
      }
    });

    it('carries the security headers and no-store, like every response', async () => {
      const response = await post(t, token, rpc('tools/list'));
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.ok(response.headers['ratelimit-remaining'] !== undefined);
    });
  });

  describe('observability', () => {
    it('counts requests under the /mcp route in the metrics', async () => {
      await post(t, token, rpc('tools/list'));
      await post(t, null, rpc('tools/list'));
      const scrape = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(scrape, /folio_http_requests_total\{route="\/mcp",method="POST",status="200"\} 1/);
      assert.match(scrape, /folio_http_requests_total\{route="\/mcp",method="POST",status="401"\} 1/);
    });

    it('writes one access-log line per request, with its status and without the token', async () => {
      const lines: { req?: { url: string }; res?: { statusCode: number } }[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      });
      const config = loadConfig({ FOLIO_BASE_URL: BASE });
      const storage = await createTestStorage();
      const clock = new FixedClock(Date.UTC(2026, 0, 15, 9, 0, 0));
      const app = await buildApp({ config, storage, clock, random: cryptoRandom, logger: createLogger(config, sink), passwordCost: TEST_PASSWORD_COST });
      const logged: TestApp = { app, storage, clock, baseUrl: BASE, close: async () => { await app.close(); await storage.close(); } };
      try {
        const owner = await createUser(logged);
        const loggedToken = await obtainMcpToken(logged, await createClient(logged, owner), owner);
        lines.length = 0;
        await post(logged, loggedToken, rpc('tools/list'));
        await post(logged, null, rpc('tools/list'), { authorization: 'Basic U0VDUkVUOlNFQ1JFVA==' });
        assert.doesNotMatch(JSON.stringify(lines), new RegExp(loggedToken));
      } finally {
        await logged.close();
      }
      const requests = lines.filter((line) => line.req !== undefined);
      assert.deepEqual(requests.map((line) => [line.req!.url, line.res!.statusCode]), [['/mcp', 200], ['/mcp', 401]]);
      assert.doesNotMatch(JSON.stringify(lines), /SECRET|U0VDUkVU/);
    });
  });
});
