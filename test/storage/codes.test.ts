import { it } from 'node:test';
import assert from 'node:assert/strict';
import { hashCredential } from '../../src/platform/secrets.ts';
import { ApplicationGoneError } from '../../src/storage/errors.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, codeFor, createGrant, deleteApplication, rawToken, revokeGrant, tokenPairFor } from './fixtures.ts';

describeStorageContract('authorization codes', (target) => {
  it('redeems a code once, saving its tokens with it; a later redemption fails and writes nothing', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    const first = tokenPairFor(grant);
    const second = tokenPairFor(grant);

    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, first, T0 + MINUTE), true);
    assert.deepEqual(await storage.codes.findAuthorizationCode(code.codeHash), { ...code, consumedAt: T0 + MINUTE });
    assert.deepEqual(await storage.tokens.findAccessToken(first.access.tokenHash), first.access);
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, second, T0 + 2 * MINUTE), false);
    assert.equal(await storage.tokens.findAccessToken(second.access.tokenHash), undefined);
    assert.equal(await storage.tokens.findRefreshToken(second.refresh!.tokenHash), undefined);
    assert.equal((await storage.grants.findGrant(grant.id))?.lastUsedAt, T0 + MINUTE);
  });

  it('gives exactly one of 20 concurrent redemptions the code, and keeps only its tokens', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () =>
      storage.tokens.redeemAuthorizationCode(code.codeHash, tokenPairFor(grant), T0 + MINUTE)));
    assert.equal(outcomes.filter(Boolean).length, 1);
    assert.equal((await db.selectFrom('access_tokens').select('token_hash').execute()).length, 1);
    assert.equal((await db.selectFrom('refresh_tokens').select('token_hash').execute()).length, 1);
  });

  it('refuses a code whose application (and so grant) was deleted since its request was read', async () => {
    const { storage } = target();
    const { application, grant } = await createGrant(storage);
    await deleteApplication(storage, application);
    const code = codeFor(grant);
    await assert.rejects(storage.codes.saveAuthorizationCode(code), ApplicationGoneError);
    assert.equal(await storage.codes.findAuthorizationCode(code.codeHash), undefined);
  });

  it('redeems nothing for a code whose grant is revoked, or an unknown code', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    await revokeGrant(storage, grant.id, T0);
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, tokenPairFor(grant), T0 + MINUTE), false);
    assert.equal(await storage.tokens.redeemAuthorizationCode(hashCredential('nope'), tokenPairFor(grant), T0 + MINUTE), false);
    assert.equal((await db.selectFrom('access_tokens').select('token_hash').execute()).length, 0);
  });

  it('refuses to redeem a code into tokens of another grant, and leaves the code unspent', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const { grant: other } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, tokenPairFor(other), T0 + MINUTE), false);
    assert.deepEqual(await storage.codes.findAuthorizationCode(code.codeHash), code);
    assert.equal((await db.selectFrom('access_tokens').select('token_hash').execute()).length, 0);
  });

  it('leaves expiry to the caller: an expired code is still redeemed', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, tokenPairFor(grant), code.expiresAt + MINUTE), true);
  });

  it('answers look-ups of codes made at once each with its own code, or none', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const codes = [codeFor(grant), codeFor(grant)];
    for (const code of codes) await storage.codes.saveAuthorizationCode(code);
    const hashes = [codes[0]!.codeHash, rawToken('unknown'), codes[1]!.codeHash, codes[0]!.codeHash];
    const found = await Promise.all(hashes.map((hash) => storage.codes.findAuthorizationCode(hash)));
    assert.deepEqual(found, [codes[0], undefined, codes[1], codes[0]]);
  });

  it('keeps a code without a PKCE challenge as null', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = { ...codeFor(grant), codeChallenge: null };
    await storage.codes.saveAuthorizationCode(code);
    assert.equal((await storage.codes.findAuthorizationCode(code.codeHash))?.codeChallenge, null);
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
