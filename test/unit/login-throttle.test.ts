import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  accountKey, accountLockout, addressKey, addressLockout, growingLockout, waitInWords,
} from '../../src/accounts/login-throttle.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('login throttle policy', () => {
  it('locks accounts from the fifth failure: 1, 2, 4 … minutes, never over an hour', () => {
    const locks = Array.from({ length: 14 }, (_, i) => accountLockout.lockoutMs(i + 1) / MINUTE);
    assert.deepEqual(locks, [0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
    assert.equal(accountLockout.lockoutMs(10_000), HOUR);
    assert.equal(accountLockout.forgetAfterMs, 24 * HOUR);
  });

  it('locks addresses from the twentieth failure and forgets them after two quiet hours', () => {
    assert.equal(addressLockout.lockoutMs(19), 0);
    assert.equal(addressLockout.lockoutMs(20), MINUTE);
    assert.equal(addressLockout.lockoutMs(21), 2 * MINUTE);
    assert.ok(addressLockout.forgetAfterMs > addressLockout.lockoutMs(1_000), 'a waited-out lock does not reset the count');
  });

  it('builds any growing lockout', () => {
    const policy = growingLockout({ threshold: 1, firstLockMs: 1000, maxLockMs: 3000, forgetAfterMs: 1 });
    assert.deepEqual([1, 2, 3].map((n) => policy.lockoutMs(n)), [1000, 2000, 3000]);
  });

  it('keys accounts by the normalized email', () => {
    assert.equal(accountKey('  Ada@Example.COM '), 'account:ada@example.com');
  });

  it('keys IPv4 addresses one by one, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    assert.equal(addressKey('192.0.2.1'), 'address:192.0.2.1');
    assert.equal(addressKey('::ffff:192.0.2.1'), 'address:192.0.2.1');
    assert.equal(addressKey('2001:db8:1:2::1'), 'address:2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd'), 'address:2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), 'address:2001:db8:0:0::/64');
    assert.equal(addressKey('::1'), 'address:0:0:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'address:fe80:0:0:0::/64');
    assert.equal(addressKey('not an address'), 'address:not an address');
  });

  it('says how long to wait in whole minutes, rounded up', () => {
    assert.equal(waitInWords(1), '1 minute');
    assert.equal(waitInWords(MINUTE), '1 minute');
    assert.equal(waitInWords(MINUTE + 1), '2 minutes');
    assert.equal(waitInWords(HOUR), '60 minutes');
  });
});
