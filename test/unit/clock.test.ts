import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FixedClock, systemClock } from '../../src/platform/clock.ts';

test('a fixed clock stands still until advanced or set', () => {
  const clock = new FixedClock(1_000);
  assert.equal(clock.now(), 1_000);
  assert.equal(clock.now(), 1_000);
  clock.advance(30 * 60 * 1000);
  assert.equal(clock.now(), 1_000 + 1_800_000);
  clock.set(5);
  assert.equal(clock.now(), 5);
});

test('a fixed clock starts on 2026-01-01 by default', () => {
  assert.equal(new FixedClock().now(), Date.UTC(2026, 0, 1));
});

test('the system clock reads wall time in milliseconds', () => {
  const before = Date.now();
  const now = systemClock.now();
  assert.ok(now >= before && now <= Date.now());
});
