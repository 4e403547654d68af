import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { LockoutPolicy, LoginThrottleStore } from '../../src/storage/stores.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, DAY } from './fixtures.ts';

/** Locks for a minute per failure from the third on; forgets after a day. */
const policy: LockoutPolicy = {
  forgetAfterMs: DAY,
  lockoutMs: (failures) => (failures >= 3 ? failures * MINUTE : 0),
};

/** The lock in force on `key` at `now`, read by an attempt that a lock refuses (and so does not count). */
async function lockOf(store: LoginThrottleStore, key: string, now: number): Promise<number | null> {
  const attempt = await store.countAttempt(key, now, policy);
  if (attempt.allowed) {
    await store.forgiveAttempt(key, attempt);
    return null;
  }
  return attempt.lockedUntil;
}

describeStorageContract('login failures', (target) => {
  it('counts attempts per key and locks once the policy says so', async () => {
    const { loginThrottle } = target().storage;
    assert.deepEqual(await loginThrottle.countAttempt('account:a@example.com', T0, policy), { allowed: true, failures: 1, lockedUntil: null, previousLockedUntil: null });
    assert.deepEqual(await loginThrottle.countAttempt('account:a@example.com', T0, policy), { allowed: true, failures: 2, lockedUntil: null, previousLockedUntil: null });
    assert.deepEqual(await loginThrottle.countAttempt('account:b@example.com', T0, policy), { allowed: true, failures: 1, lockedUntil: null, previousLockedUntil: null });
    assert.deepEqual(await loginThrottle.countAttempt('account:a@example.com', T0, policy), { allowed: true, failures: 3, lockedUntil: T0 + 3 * MINUTE, previousLockedUntil: null });
    assert.equal(await lockOf(loginThrottle, 'account:a@example.com', T0), T0 + 3 * MINUTE);
    assert.equal(await lockOf(loginThrottle, 'account:b@example.com', T0), null);
  });

  it('reads the lock in force without counting', async () => {
    const { loginThrottle } = target().storage;
    assert.equal(await loginThrottle.lockedUntil('k', T0), null, 'no row');
    for (let i = 0; i < 2; i++) await loginThrottle.countAttempt('k', T0, policy);
    assert.equal(await loginThrottle.lockedUntil('k', T0), null, 'counted, not locked');
    await loginThrottle.countAttempt('k', T0, policy);
    assert.equal(await loginThrottle.lockedUntil('k', T0), T0 + 3 * MINUTE);
    assert.equal(await loginThrottle.lockedUntil('k', T0 + 3 * MINUTE - 1), T0 + 3 * MINUTE);
    assert.equal(await loginThrottle.lockedUntil('k', T0 + 3 * MINUTE), null, 'passed');
    // Still three failures: reading counted nothing, so the next attempt is the fourth.
    assert.equal((await loginThrottle.countAttempt('k', T0 + 3 * MINUTE, policy)).failures, 4);
  });

  it('refuses without counting while a lock is in force, then allows one more attempt that locks longer', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) await loginThrottle.countAttempt('k', T0, policy);
    const refused = await loginThrottle.countAttempt('k', T0 + MINUTE, policy);
    assert.deepEqual(refused, { allowed: false, failures: 3, lockedUntil: T0 + 3 * MINUTE, previousLockedUntil: T0 + 3 * MINUTE });
    assert.deepEqual(await loginThrottle.countAttempt('k', T0 + 3 * MINUTE, policy),
      { allowed: true, failures: 4, lockedUntil: T0 + 7 * MINUTE, previousLockedUntil: T0 + 3 * MINUTE });
  });

  it('lets exactly as many concurrent attempts through as the policy allows before its lock', async () => {
    const { loginThrottle } = target().storage;
    const attempts = await Promise.all(Array.from({ length: 12 }, () => loginThrottle.countAttempt('k', T0, policy)));
    const allowed = attempts.filter((attempt) => attempt.allowed);
    assert.deepEqual(allowed.map((attempt) => attempt.failures).sort(), [1, 2, 3]);
    assert.ok(attempts.filter((attempt) => !attempt.allowed).every((attempt) => attempt.lockedUntil === T0 + 3 * MINUTE));
    assert.equal(await lockOf(loginThrottle, 'k', T0), T0 + 3 * MINUTE);
  });

  it('forgets failures after a quiet period without a lock in force', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) await loginThrottle.countAttempt('k', T0, policy);
    assert.deepEqual(await loginThrottle.countAttempt('k', T0 + DAY, policy), { allowed: true, failures: 1, lockedUntil: null, previousLockedUntil: null });
  });

  it('forgives an attempt: one failure less, and the lock it set gives way to the one before', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 2; i++) await loginThrottle.countAttempt('k', T0, policy);
    const third = await loginThrottle.countAttempt('k', T0, policy);
    await loginThrottle.forgiveAttempt('k', third);
    assert.equal(await lockOf(loginThrottle, 'k', T0), null);
    // Counted from two again: the next attempt is the third, and locks.
    assert.deepEqual(await loginThrottle.countAttempt('k', T0, policy), { allowed: true, failures: 3, lockedUntil: T0 + 3 * MINUTE, previousLockedUntil: null });
  });

  it('leaves a lock that a later attempt changed, and forgives nothing for a refused attempt', async () => {
    const { loginThrottle } = target().storage;
    const early: LockoutPolicy = { forgetAfterMs: DAY, lockoutMs: (failures) => (failures >= 2 ? failures * MINUTE : 0) };
    await loginThrottle.countAttempt('k', T0, early);
    const second = await loginThrottle.countAttempt('k', T0, early);
    assert.equal(second.lockedUntil, T0 + 2 * MINUTE);
    // A later attempt, after that lock ended, set a lock of its own.
    const third = await loginThrottle.countAttempt('k', T0 + 2 * MINUTE, early);
    assert.equal(third.lockedUntil, T0 + 5 * MINUTE);
    await loginThrottle.forgiveAttempt('k', second);
    const refused = await loginThrottle.countAttempt('k', T0 + 3 * MINUTE, early);
    assert.deepEqual([refused.allowed, refused.lockedUntil], [false, T0 + 5 * MINUTE]);
    await loginThrottle.forgiveAttempt('k', refused);
    // Three counted, one forgiven: the next attempt after the lock is the third again.
    assert.equal((await loginThrottle.countAttempt('k', T0 + 5 * MINUTE, early)).failures, 3);
  });

  it('forgets stale counters in bulk but keeps recent ones and locks still in force', async () => {
    const { loginThrottle } = target().storage;
    await loginThrottle.countAttempt('account:stale@example.com', T0, policy);
    for (let i = 0; i < 3; i++) await loginThrottle.countAttempt('account:locked@example.com', T0, { ...policy, lockoutMs: () => 10 * DAY });
    await loginThrottle.countAttempt('account:recent@example.com', T0 + 2 * DAY, policy);
    assert.equal(await loginThrottle.forgetFailuresBefore(T0 + DAY), 1);
    assert.equal(await lockOf(loginThrottle, 'account:locked@example.com', T0 + DAY), T0 + 10 * DAY);
    assert.equal((await loginThrottle.countAttempt('account:stale@example.com', T0 + 2 * DAY, policy)).failures, 1);
    assert.equal((await loginThrottle.countAttempt('account:recent@example.com', T0 + 2 * DAY, policy)).failures, 2);
  });

  it('forgets more stale counters than one batch holds, pausing between batches', async () => {
    const { storage, db } = target();
    // More than two of the largest batch (PostgreSQL's, 1,000 rows).
    const stale = Array.from({ length: 2500 }, (_, index) => ({ key: `account:stale${index}@example.com`, failures: 2, locked_until: null, updated_at: T0 }));
    for (let start = 0; start < stale.length; start += 500) await db.insertInto('login_failures').values(stale.slice(start, start + 500)).execute();
    await storage.loginThrottle.countAttempt('account:recent@example.com', T0 + 2 * DAY, policy);
    let pauses = 0;
    assert.equal(await storage.loginThrottle.forgetFailuresBefore(T0 + DAY, async () => { pauses++; }), 2500);
    assert.ok(pauses >= 2, `${pauses} pauses`);
    assert.deepEqual((await db.selectFrom('login_failures').select('key').execute()).map((row) => row.key), ['account:recent@example.com']);
  });

  it('clears a key, lock and count together, and leaves other keys alone', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) {
      await loginThrottle.countAttempt('account:a', T0, policy);
      await loginThrottle.countAttempt('address:a', T0, policy);
    }
    await loginThrottle.clearFailures('account:a');
    await loginThrottle.clearFailures('account:never-failed');
    assert.equal(await lockOf(loginThrottle, 'address:a', T0), T0 + 3 * MINUTE);
    assert.deepEqual(await loginThrottle.countAttempt('account:a', T0, policy), { allowed: true, failures: 1, lockedUntil: null, previousLockedUntil: null });
  });
});
