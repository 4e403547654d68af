import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  credentialPrefixes, generateClientId, generateCredential, hashCredential, hashesEqual, isWellFormedCredential,
  type CredentialKind, type TimeOrderedKind,
} from '../../src/platform/secrets.ts';
import { cryptoRandom } from '../../src/platform/random.ts';

const kinds = Object.keys(credentialPrefixes) as CredentialKind[];
const timeOrderedKinds: TimeOrderedKind[] = ['accessToken', 'refreshToken', 'authorizationCode'];
const ISSUED_AT = Date.UTC(2026, 10, 25, 12, 0, 0, 123);
/** The checksum as secrets.ts computes it, to build values that pass it. */
const checksumOf = (prefix: string, body: string) => createHash('sha256').update(prefix + body).digest('base64url').slice(0, 6);

describe('opaque credentials', () => {
  test('carry their type prefix, 43 base64url characters and a 6-character checksum', () => {
    for (const kind of kinds) {
      const value = generateCredential(kind, cryptoRandom);
      assert.ok(value.startsWith(credentialPrefixes[kind]));
      assert.equal(value.length, credentialPrefixes[kind].length + 43 + 6);
      assert.match(value.slice(credentialPrefixes[kind].length), /^[A-Za-z0-9_-]+$/);
      assert.equal(isWellFormedCredential(kind, value), true);
    }
  });

  test('a one-character change fails the checksum', () => {
    const value = generateCredential('accessToken', cryptoRandom);
    for (const position of [9, 20, value.length - 1]) {
      const original = value[position]!;
      const altered = value.slice(0, position) + (original === 'A' ? 'B' : 'A') + value.slice(position + 1);
      assert.equal(isWellFormedCredential('accessToken', altered), false, `position ${position}`);
    }
  });

  test('a credential of one kind is not well formed as another', () => {
    const secret = generateCredential('clientSecret', cryptoRandom);
    assert.equal(isWellFormedCredential('accessToken', secret), false);
    assert.equal(isWellFormedCredential('accessToken', secret.replace('folio_cs_', 'folio_at_')), false);
  });

  test('garbage is refused without throwing', () => {
    for (const junk of ['', 'folio_at_', 'x'.repeat(58), `folio_at_${'!'.repeat(49)}`]) {
      assert.equal(isWellFormedCredential('accessToken', junk), false);
    }
  });

  test('hashCredential is stable lowercase SHA-256 hex', () => {
    assert.equal(hashCredential('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const value = generateCredential('refreshToken', cryptoRandom);
    assert.equal(hashCredential(value), hashCredential(value));
    assert.match(hashCredential(value), /^[0-9a-f]{64}$/);
  });

  test('access tokens, refresh tokens and codes can carry their issue time in 8 characters before the random 43', () => {
    for (const kind of timeOrderedKinds) {
      const prefix = credentialPrefixes[kind];
      const value = generateCredential(kind, cryptoRandom, ISSUED_AT);
      assert.equal(value.length, prefix.length + 8 + 43 + 6);
      assert.equal(Buffer.from(value.slice(prefix.length, prefix.length + 8), 'base64url').readUIntBE(0, 6), ISSUED_AT);
      assert.equal(isWellFormedCredential(kind, value), true);
      // The shape without a time stays valid: tokens issued before it was added.
      assert.equal(isWellFormedCredential(kind, generateCredential(kind, cryptoRandom)), true);
    }
  });

  test('the issue time is covered by the checksum', () => {
    const value = generateCredential('accessToken', cryptoRandom, ISSUED_AT);
    const position = credentialPrefixes.accessToken.length + 3;
    const altered = value.slice(0, position) + (value[position] === 'A' ? 'B' : 'A') + value.slice(position + 1);
    assert.equal(isWellFormedCredential('accessToken', altered), false);
  });

  test('client secrets and session ids never carry a time: that shape is refused for them', () => {
    const body = generateCredential('accessToken', cryptoRandom, ISSUED_AT).slice(9, 9 + 51);
    for (const kind of ['clientSecret', 'session'] as const) {
      const prefix = credentialPrefixes[kind];
      assert.equal(isWellFormedCredential(kind, prefix + body + checksumOf(prefix, body)), false, kind);
    }
  });

  test('hashCredential puts a carried issue time, in 12 hex digits, before the SHA-256', () => {
    const value = generateCredential('refreshToken', cryptoRandom, ISSUED_AT);
    const sha256 = createHash('sha256').update(value).digest('hex');
    assert.equal(hashCredential(value), ISSUED_AT.toString(16).padStart(12, '0') + sha256);
    const earlier = generateCredential('refreshToken', cryptoRandom, ISSUED_AT - 1);
    assert.ok(hashCredential(earlier) < hashCredential(value), 'stored forms sort in issue order');
    // Without a time, and for every other kind: the SHA-256 alone.
    const untimed = generateCredential('refreshToken', cryptoRandom);
    assert.equal(hashCredential(untimed), createHash('sha256').update(untimed).digest('hex'));
    const secret = generateCredential('clientSecret', cryptoRandom);
    assert.match(hashCredential(secret), /^[0-9a-f]{64}$/);
  });

  test('hashCredential reads any carried time as its 6 bytes say, and no time from characters outside base64url', () => {
    const prefix = credentialPrefixes.accessToken;
    const rest = 'A'.repeat(43 + 6);
    const randomTimes = Array.from({ length: 500 }, () => cryptoRandom.bytes(6).toString('base64url'));
    for (const time of ['AAAAAAAA', '________', '-_-_AZaz', 'GZxQ1a09', '09az-_ZA', ...randomTimes]) {
      const value = prefix + time + rest;
      const sha256 = createHash('sha256').update(value).digest('hex');
      assert.equal(hashCredential(value), Buffer.from(time, 'base64url').toString('hex') + sha256, time);
    }
    for (const time of ['AAAAAAA=', 'AAAA AAA', 'AAAA.AAA', 'AAAA\u00e9AAA', 'AAA\u{1F600}AAA']) {
      const value = prefix + time + rest;
      assert.equal(hashCredential(value), createHash('sha256').update(value).digest('hex'), JSON.stringify(time));
    }
  });

  test('hashesEqual compares digests and refuses empty or mismatched lengths', () => {
    const hash = hashCredential('one');
    assert.equal(hashesEqual(hash, hashCredential('one')), true);
    assert.equal(hashesEqual(hash, hashCredential('two')), false);
    assert.equal(hashesEqual(hash, hash.slice(0, 62)), false);
    assert.equal(hashesEqual('', ''), false);
  });

  test('client ids are 128-bit base64url strings, distinct each time', () => {
    const id = generateClientId(cryptoRandom);
    assert.match(id, /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(id, generateClientId(cryptoRandom));
  });

  test('a client id never starts with "-", which a command line would read as an option', () => {
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x00)]; // 0xf8 encodes as "-"
    const id = generateClientId({ bytes: () => draws.shift()! });
    assert.equal(id, 'AAAAAAAAAAAAAAAAAAAAAA');
  });
});
