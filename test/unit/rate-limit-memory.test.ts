import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory.ts';

const MINUTE = 60_000;

describe('the in-memory rate limiter', () => {
  it('allows `limit` hits in a window, then refuses until the window ends', async () => {
    const limiter = new MemoryRateLimiter();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('a', 3, MINUTE, 1_000 + i));
    assert.deepEqual(results.map((r) => [r.allowed, r.remaining]), [[true, 2], [true, 1], [true, 0], [false, 0]]);
    assert.deepEqual(results.map((r) => r.resetMs), [MINUTE, MINUTE - 1, MINUTE - 2, MINUTE - 3]);
    assert.equal((await limiter.hit('a', 3, MINUTE, 1_000 + MINUTE - 1)).allowed, false);
    assert.deepEqual(await limiter.hit('a', 3, MINUTE, 1_000 + MINUTE), { allowed: true, limit: 3, remaining: 2, resetMs: MINUTE });
  });

  it('counts each key apart', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.hit('a', 1, MINUTE, 0);
    assert.equal((await limiter.hit('a', 1, MINUTE, 0)).allowed, false);
    assert.equal((await limiter.hit('b', 1, MINUTE, 0)).allowed, true);
  });

  it('forgets keys whose window has ended', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 50; i++) await limiter.hit(`key-${i}`, 5, MINUTE, i);
    assert.equal(limiter.size, 50);
    await limiter.hit('late', 5, MINUTE, MINUTE + 10);
    assert.equal(limiter.size, 50 - 11 + 1);
    await limiter.hit('later', 5, MINUTE, 10 * MINUTE);
    assert.equal(limiter.size, 1);
  });

  it('holds at most maxKeys, dropping the oldest window when full', async () => {
    const limiter = new MemoryRateLimiter(3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) await limiter.hit(key, 1, MINUTE, 0);
    assert.equal(limiter.size, 3);
    // 'e' kept its count; 'a' was dropped and starts afresh.
    assert.equal((await limiter.hit('e', 1, MINUTE, 1)).allowed, false);
    assert.equal((await limiter.hit('a', 1, MINUTE, 1)).allowed, true);
    assert.equal(limiter.size, 3);
  });
});
