import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_PASSWORD_BYTES, PASSWORD_COST, PasswordTooLongError, dummyPasswordHash, hashPassword, needsRehash, verifyAgainstDummy, verifyPassword,
} from '../../src/platform/password.ts';

/** Most tests need any cost at all: the real one takes a second a hash here. */
const CHEAP = { N: 2 ** 10, r: 8, p: 1 };

describe('password hashing', () => {
  test('a hash verifies its own password and no other', async () => {
    const stored = await hashPassword('correct horse battery staple', CHEAP);
    assert.equal(await verifyPassword('correct horse battery staple', stored), true);
    assert.equal(await verifyPassword('correct horse battery stapl', stored), false);
    assert.equal(await verifyPassword('', stored), false);
  });

  test('the stored form names its algorithm and cost, OWASP\'s N=2^17, and hides the password', async () => {
    const stored = await hashPassword('hunter2hunter2');
    assert.match(stored, /^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.ok(!stored.includes('hunter2'));
  });

  test('a hash made at another cost records it and is checked at it', async () => {
    const cheaper = await hashPassword('hunter2hunter2', { N: 2 ** 10, r: 8, p: 1 });
    assert.match(cheaper, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal(await verifyPassword('hunter2hunter2', cheaper), true);
    assert.equal(await verifyPassword('hunter2hunter3', cheaper), false);
  });

  test('the same password gets a different salt and hash each time', async () => {
    const first = await hashPassword('same password', CHEAP);
    const second = await hashPassword('same password', CHEAP);
    assert.notEqual(first, second);
    assert.notEqual(first.split('$')[4], second.split('$')[4]);
  });

  test('malformed stored values fail verification instead of throwing', async () => {
    const good = await hashPassword('a password', CHEAP);
    const [, , , , salt, key] = good.split('$');
    const malformed = [
      '', 'plaintext', 'bcrypt$10$abc', `scrypt$32768$8$1$${salt}`,
      `scrypt$1000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$1073741824$8$1$${salt}$${key}`, // N far too costly
      `scrypt$32768$0$1$${salt}$${key}`, `scrypt$32768$8$1$${salt}$not base64!`,
      `scrypt$32768$8$1$$${key}`, `${good}$extra`,
    ];
    for (const stored of malformed) assert.equal(await verifyPassword('a password', stored), false, stored);
  });

  test('passwords over the byte limit are refused', async () => {
    const tooLong = 'é'.repeat(MAX_PASSWORD_BYTES / 2 + 1);
    await assert.rejects(hashPassword(tooLong, CHEAP), PasswordTooLongError);
    const stored = await hashPassword('short', CHEAP);
    assert.equal(await verifyPassword(tooLong, stored), false);
    await hashPassword('x'.repeat(MAX_PASSWORD_BYTES), CHEAP);
  });

  test('the dummy check always fails and reuses one lazily made hash, at the cost asked for', async () => {
    assert.equal(await verifyAgainstDummy('anything', CHEAP), false);
    assert.equal(await dummyPasswordHash(CHEAP), await dummyPasswordHash(CHEAP));
    assert.match(await dummyPasswordHash(CHEAP), /^scrypt\$1024\$/);
  });

  test('asks for a hash made at less than the current cost to be made again', async () => {
    assert.equal(needsRehash('scrypt$32768$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5'), true, 'N=2^15, the earlier cost');
    assert.equal(needsRehash(await hashPassword('x', CHEAP), CHEAP), false);
    assert.equal(needsRehash(await hashPassword('x', CHEAP), PASSWORD_COST), true);
    assert.equal(needsRehash('not a hash'), false, 'nothing to rehash from');
  });
});
