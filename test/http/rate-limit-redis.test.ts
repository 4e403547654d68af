// Rate limits shared through Redis (DESIGN §4 FOLIO_REDIS_URL). The shared-count
// tests need a server: FOLIO_TEST_REDIS_URL (.ci/run sets it when one answers on
// 127.0.0.1:6379). Failing open needs none: it points at a closed port.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { REDIS_KEY_PREFIX, RedisRateLimiter } from '../../src/platform/rate-limit/redis.ts';
import { bearer, createClient, createTestApp, createUser, obtainTokens } from '../support/app.ts';
import { redisServerUrl } from '../support/services.ts';

const skip = redisServerUrl === undefined ? 'FOLIO_TEST_REDIS_URL is not set (no Redis to share counts through)' : false;
const CLOSED_PORT = 'redis://127.0.0.1:1';

describe('rate limits shared through Redis', { skip }, () => {
  const redis = skip ? undefined : new Redis(redisServerUrl!, { lazyConnect: true });
  const prefixes: string[] = [];
  const uniquePrefix = () => {
    const prefix = `${REDIS_KEY_PREFIX}test-${randomUUID()}:`;
    prefixes.push(prefix);
    return prefix;
  };
  after(async () => {
    if (redis === undefined) return;
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis.quit();
  });

  it('two instances over one database share one count per application and user', async () => {
    const env = { FOLIO_RATE_LIMIT_PER_MINUTE: '4', FOLIO_REDIS_URL: redisServerUrl! };
    const rateLimitKeyPrefix = uniquePrefix();
    const first = await createTestApp(env, { rateLimitKeyPrefix });
    const second = await createTestApp(env, { rateLimitKeyPrefix, storage: first.storage });
    try {
      const user = await createUser(first);
      const client = await createClient(first, user);
      const token = (await obtainTokens(first, client, user)).access_token;
      const get = (instance: typeof first) => instance.app.inject({ method: 'GET', url: '/api/v2/portfolios', headers: bearer(token) });

      const answers = [];
      for (const instance of [first, second, first, second, first, second]) answers.push(await get(instance));
      assert.deepEqual(answers.map((r) => r.statusCode), [200, 200, 200, 200, 429, 429]);
      assert.deepEqual(answers.map((r) => r.headers['ratelimit-remaining']), ['3', '2', '1', '0', '0', '0']);
      assert.equal(answers[5]!.json().error, 'rate_limited');
      assert.ok(Number(answers[5]!.headers['retry-after']) >= 1 && Number(answers[5]!.headers['retry-after']) <= 60);

      const key = `${rateLimitKeyPrefix}${client.application.id}:${user.id}`;
      assert.equal(await redis!.get(key), '6');
      const ttl = await redis!.pttl(key);
      assert.ok(ttl > 0 && ttl <= 60_000, `time to live ${ttl}`);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('starts a fresh window when the key expires in Redis', async () => {
    const prefix = uniquePrefix();
    const limiter = new RedisRateLimiter({ url: redisServerUrl!, keyPrefix: prefix, logger: { warn: () => assert.fail('no warning expected') } });
    try {
      assert.equal((await limiter.hit('k', 1, 100, 0)).allowed, true);
      assert.equal((await limiter.hit('k', 1, 100, 0)).allowed, false);
      await redis!.del(`${prefix}k`);
      assert.deepEqual(await limiter.hit('k', 1, 100, 0), { allowed: true, limit: 1, remaining: 0, resetMs: 100 });
    } finally {
      await limiter.close();
    }
  });
});

describe('rate limits when Redis is away', () => {
  it('fail open: the API still answers 200', { timeout: 10_000 }, async () => {
    const t = await createTestApp({ FOLIO_RATE_LIMIT_PER_MINUTE: '1', FOLIO_REDIS_URL: CLOSED_PORT });
    try {
      const user = await createUser(t);
      const client = await createClient(t, user);
      const token = (await obtainTokens(t, client, user)).access_token;
      for (let i = 0; i < 3; i++) {
        const response = await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(token) });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['ratelimit-limit'], '1');
      }
    } finally {
      await t.close();
    }
  });

  it('warns at most once a minute while Redis is away', { timeout: 10_000 }, async () => {
    const warnings: string[] = [];
    const limiter = new RedisRateLimiter({ url: CLOSED_PORT, logger: { warn: (_details, message) => warnings.push(message) } });
    try {
      for (const now of [0, 1_000, 59_999]) assert.equal((await limiter.hit('k', 1, 60_000, now)).allowed, true);
      assert.equal(warnings.length, 1);
      await limiter.hit('k', 1, 60_000, 60_000);
      assert.equal(warnings.length, 2);
    } finally {
      await limiter.close();
    }
  });

  it('closes cleanly without ever having connected', async () => {
    await new RedisRateLimiter({ url: CLOSED_PORT, logger: { warn: () => undefined } }).close();
  });
});
