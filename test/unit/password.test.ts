import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_PASSWORD_BYTES, PasswordTooLongError, dummyPasswordHash, hashPassword, verifyAgainstDummy, verifyPassword,
} from '../../src/platform/password.ts';

describe('password hashing', () => {
  test('a hash verifies its own password and no other', async () => {
    const stored = await hashPassword('correct horse battery staple');
    assert.equal(await verifyPassword('correct horse battery staple', stored), true);
    assert.equal(await verifyPassword('correct horse battery stapl', stored), false);
    assert.equal(await verifyPassword('', stored), false);
  });

  test('the stored form names its algorithm and cost and hides the password', async () => {
    const stored = await hashPassword('hunter2hunter2');
    assert.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.ok(!stored.includes('hunter2'));
  });

  test('a hash made at another cost records it and is checked at it', async () => {
    const cheaper = await hashPassword('hunter2hunter2', { N: 2 ** 10, r: 8, p: 1 });
    assert.match(cheaper, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal(await verifyPassword('hunter2hunter2', cheaper), true);
    assert.equal(await verifyPassword('hunter2hunter3', cheaper), false);
  });

  test('the same password gets a different salt and hash each time', async () => {
    const first = await hashPassword('same password');
    const second = await hashPassword('same password');
    assert.notEqual(first, second);
    assert.notEqual(first.split('$')[4], second.split('$')[4]);
  });

  test('malformed stored values fail verification instead of throwing', async () => {
    const good = await hashPassword('a password');
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
    await assert.rejects(hashPassword(tooLong), PasswordTooLongError);
    const stored = await hashPassword('short');
    assert.equal(await verifyPassword(tooLong, stored), false);
    await hashPassword('x'.repeat(MAX_PASSWORD_BYTES));
  });

  test('the dummy check always fails and reuses one lazily made hash', async () => {
    assert.equal(await verifyAgainstDummy('anything'), false);
    assert.equal(await dummyPasswordHash(), await dummyPasswordHash());
    assert.match(await dummyPasswordHash(), /^scrypt\$/);
  });
});
