import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationGoneError } from '../../src/storage/errors.ts';
import { describeStorageContract } from './contract.ts';
import {
  T0, MINUTE, accessTokenFor, auditEvent, codeFor, createApplication, createGrant, createUser, deleteApplication, revokeGrant, tokenPairFor,
} from './fixtures.ts';

describeStorageContract('grants', (target) => {
  it('returns the same live grant on every call for one user and application', async () => {
    const { storage } = target();
    const { user, application, grant } = await createGrant(storage);
    const again = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0 + MINUTE);
    assert.deepEqual(again, grant);
    assert.deepEqual(grant, {
      id: grant.id, userId: user.id, applicationId: application.id, scope: ['read'],
      createdAt: T0, lastUsedAt: null, revokedAt: null,
    });
  });

  it('creates exactly one live grant when many requests race for it', async () => {
    const { storage, db } = target();
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    const user = await createUser(storage);
    const grants = await Promise.all(Array.from({ length: 20 }, () =>
      storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0)));
    assert.equal(new Set(grants.map((grant) => grant.id)).size, 1);
    const rows = await db.selectFrom('grants').select('id').execute();
    assert.equal(rows.length, 1);
  });

  it('refuses a grant for an application deleted since its request was read, creating nothing', async () => {
    const { storage, db } = target();
    const { user, application } = await createGrant(storage);
    await deleteApplication(storage, application);
    await assert.rejects(storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0 + MINUTE), ApplicationGoneError);
    assert.deepEqual(await db.selectFrom('grants').select('id').execute(), []);
  });

  it('widens a live grant to the union of its scope and the requested one', async () => {
    const { storage } = target();
    const { user, application, grant } = await createGrant(storage);
    const widened = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['write', 'read'], T0);
    assert.equal(widened.id, grant.id);
    assert.deepEqual(widened.scope, ['read', 'write']);
    const narrower = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0);
    assert.deepEqual(narrower.scope, ['read', 'write']);
  });

  it('starts a new grant once the previous one is revoked', async () => {
    const { storage } = target();
    const { user, application, grant } = await createGrant(storage);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    const next = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0 + 2 * MINUTE);
    assert.notEqual(next.id, grant.id);
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, T0 + MINUTE);
  });

  it('revoking a grant revokes its access and refresh tokens and closes its unused codes', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const tokens = tokenPairFor(grant);
    await storage.tokens.saveTokens(tokens);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);

    await revokeGrant(storage, grant.id, T0 + MINUTE);

    assert.equal((await storage.tokens.findAccessToken(tokens.access.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.tokens.findRefreshToken(tokens.refresh!.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.codes.findAuthorizationCode(code.codeHash))?.consumedAt, T0 + MINUTE);
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, tokenPairFor(grant), T0 + 2 * MINUTE), false);
    assert.equal(await storage.tokens.rotateRefreshToken(tokens.refresh!.tokenHash, tokenPairFor(grant), T0 + 2 * MINUTE), false);
  });

  it("revoking the tokens from one code leaves the grant, its other codes' tokens and its client_credentials tokens live", async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const [codeA, codeB] = ['a'.repeat(64), 'b'.repeat(64)];
    const fromCode = (originCodeHash: string) => {
      const pair = tokenPairFor(grant);
      return { access: { ...pair.access, originCodeHash }, refresh: { ...pair.refresh!, originCodeHash } };
    };
    const deviceA = fromCode(codeA);
    const rotatedA = fromCode(codeA);
    const deviceB = fromCode(codeB);
    const machine = { access: accessTokenFor(grant) };
    for (const tokens of [deviceA, deviceB, machine]) assert.equal(await storage.tokens.saveTokens(tokens), true);
    assert.equal(await storage.tokens.rotateRefreshToken(deviceA.refresh.tokenHash, rotatedA, T0 + MINUTE), true);
    assert.equal((await storage.tokens.findRefreshToken(rotatedA.refresh.tokenHash))?.originCodeHash, codeA);

    await storage.grants.revokeAuthorization(grant.id, codeA, T0 + 2 * MINUTE, auditEvent('token.revoked', T0 + 2 * MINUTE));

    for (const { access, refresh } of [deviceA, rotatedA]) {
      assert.equal((await storage.tokens.findAccessToken(access.tokenHash))?.revokedAt, T0 + 2 * MINUTE);
      assert.equal((await storage.tokens.findRefreshToken(refresh.tokenHash))?.revokedAt, T0 + 2 * MINUTE);
    }
    assert.equal((await storage.tokens.findAccessToken(deviceB.access.tokenHash))?.revokedAt, null);
    assert.equal((await storage.tokens.findAccessToken(machine.access.tokenHash))?.revokedAt, null);
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, null);
    assert.equal(await storage.tokens.rotateRefreshToken(deviceB.refresh.tokenHash, fromCode(codeB), T0 + 3 * MINUTE), true);
  });

  it('revoking the only authorization of a grant ends the grant', async () => {
    const { storage } = target();
    const { user, grant } = await createGrant(storage);
    const pair = tokenPairFor(grant);
    const codeA = 'a'.repeat(64);
    await storage.tokens.saveTokens({ access: { ...pair.access, originCodeHash: codeA }, refresh: { ...pair.refresh!, originCodeHash: codeA } });
    await storage.grants.revokeAuthorization(grant.id, codeA, T0 + MINUTE, auditEvent('token.revoked', T0 + MINUTE));
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, T0 + MINUTE);
    assert.deepEqual(await storage.grants.listConnectedApplications(user.id), []);
  });

  it('revokes the whole grant while it holds a live refresh token from before tokens recorded their code', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const legacy = tokenPairFor(grant);
    const pair = tokenPairFor(grant);
    const codeA = 'a'.repeat(64);
    await storage.tokens.saveTokens(legacy);
    await storage.tokens.saveTokens({ access: { ...pair.access, originCodeHash: codeA }, refresh: { ...pair.refresh!, originCodeHash: codeA } });
    await storage.grants.revokeAuthorization(grant.id, codeA, T0 + MINUTE, auditEvent('token.revoked', T0 + MINUTE));
    assert.equal((await storage.tokens.findRefreshToken(legacy.refresh!.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.tokens.findAccessToken(pair.access.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, T0 + MINUTE);
  });

  it('keeps the first revocation time when a grant is revoked twice', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const tokens = tokenPairFor(grant);
    await storage.tokens.saveTokens(tokens);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    await revokeGrant(storage, grant.id, T0 + 2 * MINUTE);
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.tokens.findAccessToken(tokens.access.tokenHash))?.revokedAt, T0 + MINUTE);
  });

  it('lists connected applications with their owner, scope and last use, leaving out revoked grants', async () => {
    const { storage } = target();
    const { user, application, grant } = await createGrant(storage);
    const developer = await storage.users.findUserById(application.ownerId);
    const other = await createApplication(storage, developer!, 'Other');
    const revoked = await storage.grants.findOrCreateActiveGrant(user.id, other.id, ['read'], T0);
    await revokeGrant(storage, revoked.id, T0 + MINUTE);
    await storage.tokens.saveTokens(tokenPairFor(grant, T0 + 5 * MINUTE));

    assert.deepEqual(await storage.grants.listConnectedApplications(user.id), [{
      grantId: grant.id,
      applicationId: application.id,
      applicationName: 'Budget App',
      clientId: application.clientId,
      ownerName: 'Developer', registration: 'person',
      scope: ['read'],
      grantedAt: T0,
      lastUsedAt: T0 + 5 * MINUTE,
    }]);
    assert.deepEqual(await storage.grants.listConnectedApplications(application.ownerId), []);
  });
});
