import { it } from 'node:test';
import assert from 'node:assert/strict';
import { hashCredential } from '../../src/platform/secrets.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, codeFor, createGrant, rawToken } from './fixtures.ts';

describeStorageContract('authorization codes', (target) => {
  it('consumes a code once and reports every later attempt as already consumed', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);

    assert.deepEqual(await storage.codes.consumeAuthorizationCode(code.codeHash, T0 + MINUTE), {
      outcome: 'consumed', code: { ...code, consumedAt: T0 + MINUTE },
    });
    assert.deepEqual(await storage.codes.consumeAuthorizationCode(code.codeHash, T0 + 2 * MINUTE), {
      outcome: 'already_consumed', code: { ...code, consumedAt: T0 + MINUTE },
    });
  });

  it('gives exactly one of 20 concurrent redemptions the code', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () =>
      storage.codes.consumeAuthorizationCode(code.codeHash, T0 + MINUTE)));
    assert.equal(outcomes.filter((result) => result.outcome === 'consumed').length, 1);
    assert.equal(outcomes.filter((result) => result.outcome === 'already_consumed').length, 19);
  });

  it('reports an unknown code as not found', async () => {
    const { storage } = target();
    assert.deepEqual(await storage.codes.consumeAuthorizationCode(hashCredential('nope'), T0), { outcome: 'not_found' });
  });

  it('leaves expiry to the caller: an expired code is still consumed and returned', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    const result = await storage.codes.consumeAuthorizationCode(code.codeHash, code.expiresAt + MINUTE);
    assert.equal(result.outcome, 'consumed');
  });

  it('keeps a code without a PKCE challenge as null', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = { ...codeFor(grant), codeChallenge: null };
    await storage.codes.saveAuthorizationCode(code);
    const result = await storage.codes.consumeAuthorizationCode(code.codeHash, T0);
    assert.equal(result.outcome === 'consumed' && result.code.codeChallenge, null);
  });

  it('stores the hash of a code, never the code itself', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const raw = rawToken('ac');
    await storage.codes.saveAuthorizationCode(codeFor(grant, raw));
    const rows = await db.selectFrom('authorization_codes').selectAll().execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.code_hash, hashCredential(raw));
    assert.ok(!JSON.stringify(rows).includes(raw));
  });
});
