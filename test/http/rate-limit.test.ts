// DESIGN §2: bearer API rate limits per application and user, with the
// RateLimit-* fields of draft-ietf-httpapi-ratelimit-headers and 429 + Retry-After.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { registerErrorHandling } from '../../src/http/errors.ts';
import { registerRateLimit } from '../../src/http/rate-limit.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory.ts';
import type { AccessToken } from '../../src/domain/records.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, bearer, createClient, createTestApp, createUser, obtainTokens,
} from '../support/app.ts';

function assertLimited(response: LightMyRequestResponse, retryAfter: string): void {
  assert.equal(response.statusCode, 429, response.body);
  assert.equal(response.headers['retry-after'], retryAfter);
  assert.equal(response.headers['ratelimit-remaining'], '0');
  assert.match(response.headers['content-type'] as string, /^application\/json/);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  assert.equal(body.error, 'rate_limited');
}

describe('bearer API rate limits', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let token: string;
  beforeEach(async () => {
    t = await createTestApp({ FOLIO_RATE_LIMIT_PER_MINUTE: '3' });
    user = await createUser(t);
    client = await createClient(t, user);
    token = (await obtainTokens(t, client, user)).access_token;
  });
  afterEach(async () => t.close());

  const get = (url: string, accessToken = token) => t.app.inject({ method: 'GET', url, headers: bearer(accessToken) });

  it('counts down RateLimit-Remaining, then answers 429 with Retry-After and a JSON error', async () => {
    for (const remaining of ['2', '1', '0']) {
      const response = await get('/api/v2/portfolios.json');
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['ratelimit-limit'], '3');
      assert.equal(response.headers['ratelimit-remaining'], remaining);
      assert.equal(response.headers['ratelimit-reset'], '60');
      assert.equal(response.headers['ratelimit-policy'], '3;w=60');
      assert.equal(response.headers['retry-after'], undefined);
    }
    assertLimited(await get('/api/v2/portfolios.json'), '60');
  });

  it('counts every API route and token info together', async () => {
    assert.equal((await get('/api/v2/my_user')).statusCode, 200);
    assert.equal((await get('/oauth2/token/info')).headers['ratelimit-remaining'], '1');
    const missing = await get('/api/v2/portfolios/999');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['ratelimit-remaining'], '0');
    assertLimited(await get('/oauth2/token/info'), '60');
  });

  it('reports the seconds left in the window and starts afresh when it ends', async () => {
    await get('/api/v2/my_user');
    t.clock.advance(45_000);
    await get('/api/v2/my_user');
    await get('/api/v2/my_user');
    assertLimited(await get('/api/v2/my_user'), '15');
    t.clock.advance(15_000);
    const response = await get('/api/v2/my_user');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['ratelimit-remaining'], '2');
    assert.equal(response.headers['ratelimit-reset'], '60');
  });

  it('limits each application and user on its own', async () => {
    for (let i = 0; i < 4; i++) await get('/api/v2/portfolios');
    assertLimited(await get('/api/v2/portfolios'), '60');

    const otherApp = await createClient(t, user, { name: 'Dividend Tracker' });
    const sameUserOtherApp = await get('/api/v2/portfolios', (await obtainTokens(t, otherApp, user)).access_token);
    assert.equal(sameUserOtherApp.statusCode, 200, sameUserOtherApp.body);
    assert.equal(sameUserOtherApp.headers['ratelimit-remaining'], '2');

    const otherUser = await createUser(t, 'Bea Saver');
    const sameAppOtherUser = await get('/api/v2/portfolios', (await obtainTokens(t, client, otherUser)).access_token);
    assert.equal(sameAppOtherUser.statusCode, 200, sameAppOtherUser.body);
    assert.equal(sameAppOtherUser.headers['ratelimit-remaining'], '2');
  });

  it('shares the count between two tokens of the same application and user', async () => {
    const second = (await obtainTokens(t, client, user)).access_token;
    await get('/api/v2/portfolios');
    await get('/api/v2/portfolios', second);
    await get('/api/v2/portfolios');
    assertLimited(await get('/api/v2/portfolios', second), '60');
  });

  it('neither counts nor labels requests that fail bearer authentication, nor other endpoints', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios' });
      assert.equal(response.statusCode, 401);
      assert.equal(response.headers['ratelimit-limit'], undefined);
    }
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    assert.equal(metadata.headers['ratelimit-limit'], undefined);
    assert.equal((await get('/api/v2/portfolios')).headers['ratelimit-remaining'], '2');
  });
});

describe('the rate-limit hook', () => {
  it('reports each refusal to onRejected with the application and user key', async () => {
    const app = Fastify();
    registerErrorHandling(app);
    const rejected: string[] = [];
    registerRateLimit(app, { limiter: new MemoryRateLimiter(), limit: 1, clock: new FixedClock(), onRejected: (key) => rejected.push(key) });
    app.get('/limited', {
      onRequest: async (request) => { request.accessToken = { applicationId: 7, userId: 9 } as AccessToken; },
    }, async () => ({ ok: true }));
    await app.ready();
    try {
      assert.equal((await app.inject('/limited')).statusCode, 200);
      assert.equal((await app.inject('/limited')).statusCode, 429);
      assert.equal((await app.inject('/limited')).statusCode, 429);
      assert.deepEqual(rejected, ['7:9', '7:9']);
    } finally {
      await app.close();
    }
  });
});
