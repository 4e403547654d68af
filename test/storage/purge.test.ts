import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, DAY, accessTokenFor, codeFor, createGrant, refreshTokenFor } from './fixtures.ts';

describeStorageContract('purging expired tokens and codes', (target) => {
  it('deletes rows expired or revoked before the cut-off and keeps the rest', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const cutOff = T0 + DAY;
    const before = cutOff - MINUTE;
    const after = cutOff + MINUTE;

    const live = { access: accessTokenFor(grant, 'live-at', cutOff), refresh: refreshTokenFor(grant, 'live-rt', cutOff) };
    const expired = { access: accessTokenFor(grant, 'old-at'), refresh: { ...refreshTokenFor(grant, 'old-rt'), expiresAt: before } };
    const revoked = { access: { ...accessTokenFor(grant, 'rev-at', cutOff), revokedAt: before }, refresh: { ...refreshTokenFor(grant, 'rev-rt', cutOff), revokedAt: before } };
    const recentlyRevoked = { access: { ...accessTokenFor(grant, 'new-rev-at', cutOff), revokedAt: after } };
    const rotated = { access: accessTokenFor(grant, 'rot-at', cutOff), refresh: { ...refreshTokenFor(grant, 'rot-rt', cutOff), rotatedAt: before } };
    for (const tokens of [live, expired, revoked, recentlyRevoked, rotated]) await storage.tokens.saveTokens(tokens);

    const liveCode = codeFor(grant, 'live-ac', cutOff);
    const expiredCode = codeFor(grant, 'old-ac');
    const consumedCode = { ...codeFor(grant, 'used-ac', cutOff - 5 * MINUTE), consumedAt: before };
    const consumedExpiredCode = { ...codeFor(grant, 'used-old-ac'), consumedAt: T0 + MINUTE };
    for (const code of [liveCode, expiredCode, consumedCode, consumedExpiredCode]) await storage.codes.saveAuthorizationCode(code);

    assert.deepEqual(await storage.tokens.purgeExpired(cutOff, cutOff), { accessTokens: 2, refreshTokens: 2, codes: 2 });

    const accessLeft = await db.selectFrom('access_tokens').select('token_hash').orderBy('token_hash').execute();
    assert.deepEqual(accessLeft.map((row) => row.token_hash).sort(),
      [live.access, recentlyRevoked.access, rotated.access].map((token) => token.tokenHash).sort());
    assert.deepEqual(await storage.tokens.findRefreshToken(live.refresh.tokenHash), live.refresh);
    // Rotated but not yet expired: kept, so a replay of it is still caught as reuse.
    assert.deepEqual(await storage.tokens.findRefreshToken(rotated.refresh.tokenHash), rotated.refresh);
    assert.equal((await db.selectFrom('refresh_tokens').select('token_hash').execute()).length, 2);
    // Consumed but not yet expired: kept, so a replay of it is still caught.
    const codesLeft = await db.selectFrom('authorization_codes').select('code_hash').execute();
    assert.deepEqual(codesLeft.map((row) => row.code_hash).sort(), [liveCode.codeHash, consumedCode.codeHash].sort());
  });

  it('purges more rows than one batch holds', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const count = 2345;
    const rows = Array.from({ length: count }, (_, index) => ({
      token_hash: `expired-${index}`,
      grant_id: grant.id,
      application_id: grant.applicationId,
      user_id: grant.userId,
      scope: 'read',
      created_at: T0,
      expires_at: T0 + MINUTE,
    }));
    for (let start = 0; start < count; start += 500) {
      await db.insertInto('access_tokens').values(rows.slice(start, start + 500)).execute();
    }
    const result = await storage.tokens.purgeExpired(T0 + DAY, T0 + DAY);
    assert.equal(result.accessTokens, count);
    assert.deepEqual(await db.selectFrom('access_tokens').select('token_hash').execute(), []);
  });

  it('skips dead rows a transaction holds on PostgreSQL instead of waiting for them', async (t) => {
    const { storage, db } = target();
    if (storage.kind !== 'postgres') return t.skip('SQLite has one writer and no row locks');
    const { grant } = await createGrant(storage);
    const dead = ['held', 'free-1', 'free-2'].map((name) => accessTokenFor(grant, name));
    for (const access of dead) await storage.tokens.saveTokens({ access });
    const cutOff = T0 + DAY;
    await db.transaction().execute(async (trx) => {
      // What revoking the grant would hold: the row locked until its transaction ends.
      await trx.selectFrom('access_tokens').select('token_hash').where('token_hash', '=', dead[0]!.tokenHash).forUpdate().execute();
      const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3000).unref());
      const purged = await Promise.race([storage.tokens.purgeExpired(cutOff, cutOff), waited]);
      assert.deepEqual(purged, { accessTokens: 2, refreshTokens: 0, codes: 0 });
    });
    assert.deepEqual(await storage.tokens.purgeExpired(cutOff, cutOff), { accessTokens: 1, refreshTokens: 0, codes: 0 });
  });
});
