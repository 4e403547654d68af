import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { LockoutPolicy } from '../../src/storage/stores.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, DAY } from './fixtures.ts';

/** Locks for a minute per failure from the third on; forgets after a day. */
const policy: LockoutPolicy = {
  forgetAfterMs: DAY,
  lockoutMs: (failures) => (failures >= 3 ? failures * MINUTE : 0),
};

describeStorageContract('login failures', (target) => {
  it('counts failures per key and locks once the policy says so', async () => {
    const { loginThrottle } = target().storage;
    assert.deepEqual(await loginThrottle.recordFailure('account:a@example.com', T0, policy), { failures: 1, lockedUntil: null });
    assert.deepEqual(await loginThrottle.recordFailure('account:a@example.com', T0, policy), { failures: 2, lockedUntil: null });
    assert.deepEqual(await loginThrottle.recordFailure('account:b@example.com', T0, policy), { failures: 1, lockedUntil: null });
    assert.deepEqual(await loginThrottle.recordFailure('account:a@example.com', T0, policy), { failures: 3, lockedUntil: T0 + 3 * MINUTE });
    assert.equal(await loginThrottle.lockedUntil(['account:a@example.com'], T0), T0 + 3 * MINUTE);
    assert.equal(await loginThrottle.lockedUntil(['account:b@example.com'], T0), undefined);
  });

  it('answers the latest lock still in force among several keys', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) await loginThrottle.recordFailure('account:a', T0, policy);
    for (let i = 0; i < 4; i++) await loginThrottle.recordFailure('address:192.0.2.1', T0, policy);
    assert.equal(await loginThrottle.lockedUntil(['account:a', 'address:192.0.2.1', 'account:none'], T0), T0 + 4 * MINUTE);
    assert.equal(await loginThrottle.lockedUntil(['account:a', 'address:192.0.2.1'], T0 + 3 * MINUTE), T0 + 4 * MINUTE);
    assert.equal(await loginThrottle.lockedUntil(['account:a', 'address:192.0.2.1'], T0 + 4 * MINUTE), undefined);
    assert.equal(await loginThrottle.lockedUntil([], T0), undefined);
  });

  it('keeps counting after a lock ends, so each further failure locks longer', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) await loginThrottle.recordFailure('k', T0, policy);
    const later = T0 + 10 * MINUTE;
    assert.deepEqual(await loginThrottle.recordFailure('k', later, policy), { failures: 4, lockedUntil: later + 4 * MINUTE });
  });

  it('never shortens a lock already in force', async () => {
    const { loginThrottle } = target().storage;
    const shrinking: LockoutPolicy = { forgetAfterMs: DAY, lockoutMs: (failures) => (failures === 1 ? 60 * MINUTE : MINUTE) };
    assert.deepEqual(await loginThrottle.recordFailure('k', T0, shrinking), { failures: 1, lockedUntil: T0 + 60 * MINUTE });
    assert.deepEqual(await loginThrottle.recordFailure('k', T0 + MINUTE, shrinking), { failures: 2, lockedUntil: T0 + 60 * MINUTE });
  });

  it('reports a lock still in force even when this failure adds none', async () => {
    const { loginThrottle } = target().storage;
    const once: LockoutPolicy = { forgetAfterMs: DAY, lockoutMs: (failures) => (failures === 1 ? 10 * MINUTE : 0) };
    await loginThrottle.recordFailure('k', T0, once);
    assert.deepEqual(await loginThrottle.recordFailure('k', T0 + MINUTE, once), { failures: 2, lockedUntil: T0 + 10 * MINUTE });
    assert.deepEqual(await loginThrottle.recordFailure('k', T0 + 20 * MINUTE, once), { failures: 3, lockedUntil: null });
  });

  it('forgets failures after a quiet period without a lock in force', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) await loginThrottle.recordFailure('k', T0, policy);
    assert.deepEqual(await loginThrottle.recordFailure('k', T0 + DAY, policy), { failures: 1, lockedUntil: null });
    assert.equal(await loginThrottle.lockedUntil(['k'], T0 + DAY), undefined);
  });

  it('forgets stale counters in bulk but keeps recent ones and locks still in force', async () => {
    const { loginThrottle } = target().storage;
    await loginThrottle.recordFailure('account:stale@example.com', T0, policy);
    for (let i = 0; i < 3; i++) await loginThrottle.recordFailure('account:locked@example.com', T0, { ...policy, lockoutMs: () => 10 * DAY });
    await loginThrottle.recordFailure('account:recent@example.com', T0 + 2 * DAY, policy);
    assert.equal(await loginThrottle.forgetFailuresBefore(T0 + DAY), 1);
    assert.equal(await loginThrottle.lockedUntil(['account:locked@example.com'], T0 + DAY), T0 + 10 * DAY);
    assert.deepEqual(await loginThrottle.recordFailure('account:stale@example.com', T0 + 2 * DAY, policy), { failures: 1, lockedUntil: null });
    assert.deepEqual(await loginThrottle.recordFailure('account:recent@example.com', T0 + 2 * DAY, policy), { failures: 2, lockedUntil: null });
  });

  it('counts every one of many concurrent failures', async () => {
    const { loginThrottle } = target().storage;
    const results = await Promise.all(Array.from({ length: 12 }, () => loginThrottle.recordFailure('k', T0, policy)));
    assert.deepEqual(results.map((result) => result.failures).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i + 1));
    assert.equal(await loginThrottle.lockedUntil(['k'], T0), T0 + 12 * MINUTE);
  });

  it('clears a key, lock and count together, and leaves other keys alone', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 3; i++) {
      await loginThrottle.recordFailure('account:a', T0, policy);
      await loginThrottle.recordFailure('address:a', T0, policy);
    }
    await loginThrottle.clearFailures('account:a');
    await loginThrottle.clearFailures('account:never-failed');
    assert.equal(await loginThrottle.lockedUntil(['account:a'], T0), undefined);
    assert.equal(await loginThrottle.lockedUntil(['address:a'], T0), T0 + 3 * MINUTE);
    assert.deepEqual(await loginThrottle.recordFailure('account:a', T0, policy), { failures: 1, lockedUntil: null });
  });

  it('counts attempts like failures, and refuses without counting while a lock is in force', async () => {
    const { loginThrottle } = target().storage;
    const first = await loginThrottle.countAttempt('k', T0, policy);
    assert.deepEqual(first, { allowed: true, failures: 1, lockedUntil: null, previousLockedUntil: null });
    await loginThrottle.countAttempt('k', T0, policy);
    assert.deepEqual(await loginThrottle.countAttempt('k', T0, policy), { allowed: true, failures: 3, lockedUntil: T0 + 3 * MINUTE, previousLockedUntil: null });
    const refused = await loginThrottle.countAttempt('k', T0 + MINUTE, policy);
    assert.deepEqual(refused, { allowed: false, failures: 3, lockedUntil: T0 + 3 * MINUTE, previousLockedUntil: T0 + 3 * MINUTE });
    // Once the lock has ended the next attempt is allowed and counted, and locks longer.
    assert.deepEqual(await loginThrottle.countAttempt('k', T0 + 3 * MINUTE, policy),
      { allowed: true, failures: 4, lockedUntil: T0 + 7 * MINUTE, previousLockedUntil: T0 + 3 * MINUTE });
  });

  it('lets exactly as many concurrent attempts through as the policy allows before its lock', async () => {
    const { loginThrottle } = target().storage;
    const attempts = await Promise.all(Array.from({ length: 12 }, () => loginThrottle.countAttempt('k', T0, policy)));
    assert.equal(attempts.filter((attempt) => attempt.allowed).length, 3);
    assert.deepEqual(attempts.filter((attempt) => attempt.allowed).map((attempt) => attempt.failures).sort(), [1, 2, 3]);
    assert.equal(await loginThrottle.lockedUntil(['k'], T0), T0 + 3 * MINUTE);
  });

  it('forgives an attempt: one failure less, and the lock it set gives way to the one before', async () => {
    const { loginThrottle } = target().storage;
    for (let i = 0; i < 2; i++) await loginThrottle.countAttempt('k', T0, policy);
    const third = await loginThrottle.countAttempt('k', T0, policy);
    await loginThrottle.forgiveAttempt('k', third);
    assert.equal(await loginThrottle.lockedUntil(['k'], T0), undefined);
    // Counted from two again: the next attempt is the third, and locks.
    assert.deepEqual(await loginThrottle.countAttempt('k', T0, policy), { allowed: true, failures: 3, lockedUntil: T0 + 3 * MINUTE, previousLockedUntil: null });
  });

  it('leaves a lock that a later attempt changed, and forgives nothing for a refused attempt', async () => {
    const { loginThrottle } = target().storage;
    const long: LockoutPolicy = { forgetAfterMs: DAY, lockoutMs: (failures) => (failures >= 2 ? failures * MINUTE : 0) };
    await loginThrottle.countAttempt('k', T0, long);
    const second = await loginThrottle.countAttempt('k', T0, long);
    assert.equal(second.lockedUntil, T0 + 2 * MINUTE);
    // A later attempt after that lock ended set a lock of its own.
    const third = await loginThrottle.countAttempt('k', T0 + 2 * MINUTE, long);
    assert.equal(third.lockedUntil, T0 + 5 * MINUTE);
    await loginThrottle.forgiveAttempt('k', second);
    assert.equal(await loginThrottle.lockedUntil(['k'], T0 + 2 * MINUTE), T0 + 5 * MINUTE);
    const refused = await loginThrottle.countAttempt('k', T0 + 3 * MINUTE, long);
    assert.equal(refused.allowed, false);
    await loginThrottle.forgiveAttempt('k', refused);
    // Three counted, one forgiven: the next attempt after the lock is the third again.
    assert.equal((await loginThrottle.countAttempt('k', T0 + 5 * MINUTE, long)).failures, 3);
  });
});
