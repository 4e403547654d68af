import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seal, unseal } from '../../src/platform/sealing.ts';
import { cryptoRandom } from '../../src/platform/random.ts';

describe('sealing', () => {
  it('opens with the same key and context only', () => {
    const sealed = seal('folio_cs_secret', 'folio_ss_key', 'context 1', cryptoRandom);
    assert.doesNotMatch(sealed, /secret/);
    assert.equal(unseal(sealed, 'folio_ss_key', 'context 1'), 'folio_cs_secret');
    assert.equal(unseal(sealed, 'folio_ss_other', 'context 1'), undefined);
    assert.equal(unseal(sealed, 'folio_ss_key', 'context 2'), undefined);
  });

  it('refuses an altered or truncated value', () => {
    const sealed = seal('folio_cs_secret', 'key', 'context', cryptoRandom);
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    assert.equal(unseal(bytes.toString('base64url'), 'key', 'context'), undefined);
    assert.equal(unseal(sealed.slice(0, 10), 'key', 'context'), undefined);
    assert.equal(unseal('', 'key', 'context'), undefined);
  });

  it('never seals the same value the same way twice', () => {
    assert.notEqual(seal('x', 'key', 'context', cryptoRandom), seal('x', 'key', 'context', cryptoRandom));
  });
});
