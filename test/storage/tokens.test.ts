import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { AuditEventType, IssuedTokens } from '../../src/domain/records.ts';
import type { Database } from '../../src/storage/schema.ts';
import type { Storage } from '../../src/storage/stores.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import { describeStorageContract } from './contract.ts';
import {
  T0, MINUTE, accessTokenFor, auditEvent, createGrant, deleteApplication, rawToken, refreshTokenFor, revokeGrant, tokenPairFor,
} from './fixtures.ts';

const lastUseOf = async (storage: Storage, grantId: number) => (await storage.grants.findGrant(grantId))?.lastUsedAt;

describeStorageContract('tokens', (target) => {
  it('saves an access and refresh token together and marks the grant used', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const tokens = tokenPairFor(grant, T0 + MINUTE);
    await storage.tokens.saveTokens(tokens);
    assert.deepEqual(await storage.tokens.findAccessToken(tokens.access.tokenHash), tokens.access);
    assert.deepEqual(await storage.tokens.findRefreshToken(tokens.refresh!.tokenHash), tokens.refresh);
    assert.equal(await lastUseOf(storage, grant.id), T0 + MINUTE);
  });

  it('saves an access token alone, as client credentials issue it', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const access = accessTokenFor(grant);
    await storage.tokens.saveTokens({ access });
    assert.deepEqual(await storage.tokens.findAccessToken(access.tokenHash), access);
    assert.deepEqual(await db.selectFrom('refresh_tokens').select('token_hash').execute(), []);
  });

  it('answers look-ups of refresh tokens made at once each with its own token, or none', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const pairs = [tokenPairFor(grant), tokenPairFor(grant), tokenPairFor(grant)];
    for (const pair of pairs) await storage.tokens.saveTokens(pair);
    const hashes = [...pairs.map((pair) => pair.refresh!.tokenHash), hashCredential('never issued'), pairs[1]!.refresh!.tokenHash];
    const found = await Promise.all(hashes.map((hash) => storage.tokens.findRefreshToken(hash)));
    assert.deepEqual(found, [...pairs.map((pair) => pair.refresh), undefined, pairs[1]!.refresh]);
  });

  it('stores the hashes of tokens, never the tokens themselves', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const [rawAccess, rawRefresh] = [rawToken('at'), rawToken('rt')];
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, rawAccess), refresh: refreshTokenFor(grant, rawRefresh) });
    const accessRows = await db.selectFrom('access_tokens').selectAll().execute();
    const refreshRows = await db.selectFrom('refresh_tokens').selectAll().execute();
    assert.deepEqual(accessRows.map((row) => row.token_hash), [hashCredential(rawAccess)]);
    assert.deepEqual(refreshRows.map((row) => row.token_hash), [hashCredential(rawRefresh)]);
    const everything = JSON.stringify([accessRows, refreshRows]);
    assert.ok(!everything.includes(rawAccess) && !everything.includes(rawRefresh));
  });

  it('rotates a live refresh token into a new pair and marks the old one rotated', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    const next = tokenPairFor(grant, T0 + 30 * MINUTE);

    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, next, T0 + 30 * MINUTE), true);

    assert.equal((await storage.tokens.findRefreshToken(first.refresh!.tokenHash))?.rotatedAt, T0 + 30 * MINUTE);
    assert.deepEqual(await storage.tokens.findAccessToken(next.access.tokenHash), next.access);
    assert.deepEqual(await storage.tokens.findRefreshToken(next.refresh!.tokenHash), next.refresh);
    assert.equal((await storage.tokens.findAccessToken(first.access.tokenHash))?.revokedAt, null);
    assert.equal(await lastUseOf(storage, grant.id), T0 + 30 * MINUTE);
  });

  it('lets exactly one of 20 concurrent rotations of one refresh token win', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    const results = await Promise.all(Array.from({ length: 20 }, () =>
      storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await db.selectFrom('refresh_tokens').select('token_hash').execute()).length, 2);
    assert.equal((await db.selectFrom('access_tokens').select('token_hash').execute()).length, 2);
  });

  it('refuses to rotate an already rotated token and writes nothing', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE);
    const before = await snapshot(db);
    const late = tokenPairFor(grant, T0 + 2 * MINUTE);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, late, T0 + 2 * MINUTE), false);
    assert.deepEqual(await snapshot(db), before);
  });

  it('refuses to rotate a revoked or unknown token and writes nothing', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    const before = await snapshot(db);
    const next = tokenPairFor(grant, T0 + 2 * MINUTE);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, next, T0 + 2 * MINUTE), false);
    assert.equal(await storage.tokens.rotateRefreshToken(hashCredential('unknown'), next, T0 + 2 * MINUTE), false);
    assert.deepEqual(await snapshot(db), before);
  });

  it('writes the grant\'s last use when it is a second old, not on every issue or rotation', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant, T0);
    await storage.tokens.saveTokens(first);
    assert.equal(await lastUseOf(storage, grant.id), T0);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 999) });
    assert.equal(await lastUseOf(storage, grant.id), T0);
    const second = tokenPairFor(grant, T0 + 999);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, second, T0 + 999), true);
    assert.equal(await lastUseOf(storage, grant.id), T0);
    assert.equal(await storage.tokens.rotateRefreshToken(second.refresh!.tokenHash, tokenPairFor(grant, T0 + 1000), T0 + 1000), true);
    assert.equal(await lastUseOf(storage, grant.id), T0 + 1000);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 2000) });
    assert.equal(await lastUseOf(storage, grant.id), T0 + 2000);
  });

  it('writes the last use of the next issue after one that lost its race and wrote nothing', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant, T0);
    await storage.tokens.saveTokens(first);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + 1500), T0 + 1500), true);
    assert.equal(await lastUseOf(storage, grant.id), T0 + 1500);
    // The same token again, three seconds on: the last use is stale, and the exchange loses.
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + 4500), T0 + 4500), false);
    assert.equal(await lastUseOf(storage, grant.id), T0 + 1500);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 4600) });
    assert.equal(await lastUseOf(storage, grant.id), T0 + 4600);
  });

  it('writes the last use of an issue whose batch ran again after another issue in it failed', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const first = { access: accessTokenFor(grant, undefined, T0) };
    await storage.tokens.saveTokens(first);
    // Made together, the two share a batch (kysely/batches.ts).
    const [later, again] = await Promise.allSettled([
      storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 2000) }),
      storage.tokens.saveTokens(first),
    ]);
    assert.deepEqual(later, { status: 'fulfilled', value: true });
    assert.equal(again.status, 'rejected');
    assert.equal(await lastUseOf(storage, grant.id), T0 + 2000);
  });

  it('refuses an issue on a grant revoked within a second of its last use', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant, T0);
    await storage.tokens.saveTokens(first);
    await revokeGrant(storage, grant.id, T0 + 100);
    const before = await snapshot(db);
    assert.equal(await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 200) }), false);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + 200), T0 + 200), false);
    assert.deepEqual(await snapshot(db), before);
  });

  it('refuses to save tokens on a revoked grant and writes nothing', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    const before = await snapshot(db);
    assert.equal(await storage.tokens.saveTokens(tokenPairFor(grant, T0 + 2 * MINUTE)), false);
    assert.deepEqual(await snapshot(db), before);
  });

  it('refuses to rotate a live token whose grant was revoked, and writes nothing', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    // Only the grant is revoked, as if revokeGrant had committed between a refresh's read and its write.
    await db.updateTable('grants').set({ revoked_at: T0 + MINUTE }).where('id', '=', grant.id).execute();
    const before = await snapshot(db);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + 2 * MINUTE), T0 + 2 * MINUTE), false);
    assert.deepEqual(await snapshot(db), before);
  });

  it('refuses to rotate a token into tokens of another grant, and writes nothing', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const { grant: other } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    const before = await snapshot(db);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(other, T0 + MINUTE), T0 + MINUTE), false);
    assert.deepEqual(await snapshot(db), before);
  });

  it('settles rotations racing a grant revocation without deadlock, leaving no live token', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    await Promise.all([
      ...Array.from({ length: 10 }, () => storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE)),
      ...Array.from({ length: 5 }, () => revokeGrant(storage, grant.id, T0 + MINUTE)),
      ...Array.from({ length: 5 }, () => storage.tokens.saveTokens(tokenPairFor(grant, T0 + MINUTE))),
    ]);
    // Live as a look-up answers: one issued beside a refresh token ends with it (migration 0010).
    const rows = await db.selectFrom('access_tokens').select('token_hash').execute();
    assert.ok(rows.length >= 1);
    for (const { token_hash } of rows) {
      const found = await storage.tokens.findAccessToken(token_hash);
      assert.notEqual(found?.revokedAt, null, token_hash);
    }
  });

  // Migration 0010: an access token issued beside a refresh token is bound to it.
  it("keeps an access token live through its refresh token's rotation, and revokes it with that refresh token", async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    const next = tokenPairFor(grant, T0 + MINUTE);
    await storage.tokens.saveTokens(first);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, next, T0 + MINUTE), true);
    assert.deepEqual(await storage.tokens.findAccessToken(first.access.tokenHash), first.access);

    // Its refresh token's revocation, here the whole grant's: the access token's own row is not written.
    await revokeGrant(storage, grant.id, T0 + 2 * MINUTE);
    for (const { access } of [first, next]) {
      assert.deepEqual(await storage.tokens.findAccessToken(access.tokenHash), { ...access, revokedAt: T0 + 2 * MINUTE });
    }
    // Revoked itself earlier (RFC 7009), it keeps its own time.
    const own = tokenPairFor(await storage.grants.findOrCreateActiveGrant(grant.userId, grant.applicationId, ['read'], T0), T0 + 3 * MINUTE);
    await storage.tokens.saveTokens(own);
    await storage.tokens.revokeAccessToken(own.access.tokenHash, T0 + 4 * MINUTE, auditEvent('token.revoked'));
    await revokeGrant(storage, own.access.grantId, T0 + 5 * MINUTE);
    assert.equal((await storage.tokens.findAccessToken(own.access.tokenHash))?.revokedAt, T0 + 4 * MINUTE);
  });

  it('finds no access token whose refresh token is gone, though its own row is still there', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const tokens = tokenPairFor(grant);
    await storage.tokens.saveTokens(tokens);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    // The purge takes the refresh token revoked before its cut-off; the access token, unexpired and not itself revoked, stays.
    assert.deepEqual(await storage.tokens.purgeExpired(T0 + 2 * MINUTE, T0 + 2 * MINUTE), { accessTokens: 0, refreshTokens: 1, codes: 0 });
    assert.equal((await db.selectFrom('access_tokens').select('token_hash').execute()).length, 1);
    assert.equal(await storage.tokens.findAccessToken(tokens.access.tokenHash), undefined);
  });

  it('finds no access token whose grant is gone, though its row was left behind', async () => {
    const { storage, db } = target();
    const { application, grant } = await createGrant(storage);
    const alone = { access: accessTokenFor(grant) };
    await storage.tokens.saveTokens(alone);
    // Behind the stores' back, as a database administrator might: the grant goes by cascade, the token's row stays.
    await db.deleteFrom('applications').where('id', '=', application.id).execute();
    assert.equal((await db.selectFrom('access_tokens').select('token_hash').execute()).length, 1);
    assert.equal(await storage.tokens.findAccessToken(alone.access.tokenHash), undefined);
  });

  it("deletes an application's access tokens issued alone, ends those bound to its refresh tokens, and leaves others' be", async () => {
    const { storage, db } = target();
    const { application, grant } = await createGrant(storage);
    const bound = tokenPairFor(grant);
    const alone = { access: accessTokenFor(grant) };
    const other = await createGrant(storage);
    const othersTokens = [tokenPairFor(other.grant), { access: accessTokenFor(other.grant) }];
    for (const tokens of [bound, alone, ...othersTokens]) assert.equal(await storage.tokens.saveTokens(tokens), true);

    await deleteApplication(storage, application);

    assert.equal(await storage.tokens.findAccessToken(bound.access.tokenHash), undefined);
    assert.equal(await storage.tokens.findAccessToken(alone.access.tokenHash), undefined);
    const rows = await db.selectFrom('access_tokens').select('token_hash').execute();
    assert.equal(rows.some((row) => row.token_hash === alone.access.tokenHash), false);
    for (const { access } of othersTokens) assert.deepEqual(await storage.tokens.findAccessToken(access.tokenHash), access);
  });

  it('writes the audit event of an issue and of a rotation with its tokens, values intact', async () => {
    const { storage } = target();
    const { user, application, grant } = await createGrant(storage);
    const first = withEvent(tokenPairFor(grant), 'token.issued', { note: 'quote " backslash \\ newline \n 📈', grant_id: grant.id });
    first.access.scope = ['read', 'write'];
    first.event!.ip = '2001:db8::1';
    assert.equal(await storage.tokens.saveTokens(first), true);
    const next = withEvent(tokenPairFor(grant, T0 + MINUTE), 'token.refreshed', { grant_id: grant.id });
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, next, T0 + MINUTE), true);

    assert.deepEqual(await storage.tokens.findAccessToken(first.access.tokenHash), first.access);
    const events = await storage.audit.listEventsForUser(user.id, 10, ['token.issued', 'token.refreshed']);
    assert.deepEqual(events.map(({ id: _id, ...event }) => event), [next.event, first.event]);
    assert.ok(events.every((event) => event.applicationId === application.id));
  });

  it('writes no audit event when an issue or a rotation is refused', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant);
    await storage.tokens.saveTokens(first);
    await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE);
    const replay = withEvent(tokenPairFor(grant, T0 + 2 * MINUTE), 'token.refreshed', {});
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, replay, T0 + 2 * MINUTE), false);
    await revokeGrant(storage, grant.id, T0 + 3 * MINUTE);
    assert.equal(await storage.tokens.saveTokens(withEvent(tokenPairFor(grant, T0 + 4 * MINUTE), 'token.issued', {})), false);
    assert.deepEqual(await db.selectFrom('audit_events').select('type').where('type', 'in', ['token.issued', 'token.refreshed']).execute(), []);
  });

  it('revokes an access token once and reports unknown or already revoked tokens', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const access = accessTokenFor(grant);
    await storage.tokens.saveTokens({ access });
    assert.equal(await storage.tokens.revokeAccessToken(access.tokenHash, T0 + MINUTE, auditEvent('token.revoked', T0 + MINUTE)), true);
    assert.equal(await storage.tokens.revokeAccessToken(access.tokenHash, T0 + 2 * MINUTE, auditEvent('token.revoked', T0 + 2 * MINUTE)), false);
    assert.equal(await storage.tokens.revokeAccessToken(hashCredential('unknown'), T0, auditEvent('token.revoked', T0)), false);
    assert.equal((await storage.tokens.findAccessToken(access.tokenHash))?.revokedAt, T0 + MINUTE);
  });
});

/** Every row rotation could touch, to prove a refused rotation wrote nothing. */
function withEvent(tokens: IssuedTokens, type: AuditEventType, detail: Record<string, unknown>): IssuedTokens {
  const { access } = tokens;
  return { ...tokens, event: { type, userId: access.userId, applicationId: access.applicationId, ip: '203.0.113.9', detail, createdAt: access.createdAt } };
}

async function snapshot(db: Kysely<Database>) {
  return {
    access: await db.selectFrom('access_tokens').selectAll().orderBy('token_hash').execute(),
    refresh: await db.selectFrom('refresh_tokens').selectAll().orderBy('token_hash').execute(),
    grants: await db.selectFrom('grants').selectAll().orderBy('id').execute(),
  };
}
