import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  credentialPrefixes, generateClientId, generateCredential, hashCredential, hashesEqual, isWellFormedCredential,
  type CredentialKind,
} from '../../src/platform/secrets.ts';
import { cryptoRandom } from '../../src/platform/random.ts';

const kinds = Object.keys(credentialPrefixes) as CredentialKind[];

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
