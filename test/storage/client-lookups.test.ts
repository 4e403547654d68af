// Client look-ups from memory (cachingApplications in src/storage/cache/caching-stores.ts):
// kept across the token endpoint's own writes, which are every request, and
// forgotten on any change to an application: this process's at once, another
// SQLite process's from the next turn of the event loop, another PostgreSQL
// instance's when its notice arrives. A look-up answered from memory is the very
// object handed out before, which is how these tests tell.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { hashCredential } from '../../src/platform/secrets.ts';
import { openStorage, type OpenedStorage } from '../../src/storage/open.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import type { Application } from '../../src/domain/records.ts';
import type { Storage } from '../../src/storage/stores.ts';
import { eventually, storageOnAFileFor, trusted, twoInstancesFor } from './memory-reads.ts';
import { postgresServerUrl, withoutPostgres } from './contract.ts';
import {
  accessTokenFor, auditEvent, codeFor, createGrant, MINUTE, rawToken, T0, tokenPairFor,
} from './fixtures.ts';

/** What one token endpoint's requests write: an issue, a rotation, a code redemption, and a revocation. */
async function tokenEndpointWrites(storage: Storage, issuer: Awaited<ReturnType<typeof createGrant>>): Promise<void> {
  const { grant } = issuer;
  assert.equal(await storage.tokens.saveTokens({ access: accessTokenFor(grant) }), true);
  const pair = tokenPairFor(grant);
  assert.equal(await storage.tokens.saveTokens(pair), true);
  assert.equal(await storage.tokens.rotateRefreshToken(pair.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE), true);
  const code = codeFor(grant);
  await storage.codes.saveAuthorizationCode(code);
  assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE), true);
  assert.equal(await storage.tokens.revokeAccessToken(pair.access.tokenHash, T0 + MINUTE, auditEvent('token.revoked')), true);
}

describe('client look-ups from memory on a SQLite file', () => {
  const onAFile = storageOnAFileFor();
  let file: string;
  let storage: OpenedStorage;
  beforeEach(() => ({ file, storage } = onAFile));

  it('answers from memory across token issue, rotation, code redemption and revocation', async () => {
    const issuer = await createGrant(storage);
    const first = await storage.applications.findApplicationByClientId(issuer.application.clientId);
    assert.equal(first?.id, issuer.application.id);
    await tokenEndpointWrites(storage, issuer);
    assert.equal(await storage.applications.findApplicationByClientId(issuer.application.clientId), first);
  });

  it('sees an application edited, given a new secret and deleted through this storage at once', async () => {
    const { application } = await createGrant(storage);
    const lookUp = () => storage.applications.findApplicationByClientId(application.clientId);
    await lookUp();
    await storage.applications.updateApplication(application.id, application.ownerId, { name: 'Renamed' }, T0 + MINUTE, () => auditEvent('application.updated'));
    assert.equal((await lookUp())?.name, 'Renamed');
    const secretHash = hashCredential(rawToken('secret'));
    assert.equal(await storage.applications.replaceApplicationSecret(application.id, secretHash, T0 + MINUTE, auditEvent('application.secret_rotated')), true);
    assert.equal((await lookUp())?.secretHash, secretHash);
    assert.equal(await storage.applications.deleteApplication(application.id, application.ownerId, auditEvent('application.deleted')), true);
    assert.equal(await lookUp(), undefined);
  });

  it("sees another process's new secret from the next turn of the event loop", async () => {
    const { application } = await createGrant(storage);
    await storage.applications.findApplicationByClientId(application.clientId);
    // What a second server on the same file would do.
    const other = await openStorage(file);
    const secretHash = hashCredential(rawToken('secret'));
    try {
      await other.applications.replaceApplicationSecret(application.id, secretHash, T0 + MINUTE, auditEvent('application.secret_rotated'));
    } finally {
      await other.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await storage.applications.findApplicationByClientId(application.clientId))?.secretHash, secretHash);
  });

  it('hands out records no caller can change for the next one', async () => {
    const { application } = await createGrant(storage);
    const found = (await storage.applications.findApplicationByClientId(application.clientId))!;
    assert.throws(() => { (found as { secretHash: string | null }).secretHash = null; }, TypeError);
    assert.throws(() => { found.redirectUris.push('https://evil.example/'); }, TypeError);
    assert.throws(() => { found.scopes.push('write'); }, TypeError);
    assert.equal((await storage.applications.findApplicationByClientId(application.clientId))!.secretHash, application.secretHash);
  });
});

describe('client look-ups from memory on PostgreSQL, with two instances', { skip: withoutPostgres }, () => {
  const instances = twoInstancesFor(postgresServerUrl);
  let one: OpenedStorage;
  let two: OpenedStorage;
  before(() => ({ one, two } = instances));

  /** An application whose look-up instance one holds in memory, once its listener is up. */
  async function cachedApplication(): Promise<{ issuer: Awaited<ReturnType<typeof createGrant>>; held: Application }> {
    const issuer = await createGrant(two);
    const { changes } = instances.oneDatabase;
    await eventually(() => trusted(() => changes.version('applications')), 2000, 'instance one listens');
    const held = (await one.applications.findApplicationByClientId(issuer.application.clientId))!;
    assert.equal(await one.applications.findApplicationByClientId(issuer.application.clientId), held);
    return { issuer, held };
  }

  it("keeps a look-up across both instances' token issues, rotations, redemptions and revocations", async () => {
    const { issuer, held } = await cachedApplication();
    const tokensVersion = () => instances.oneDatabase.changes.version('accessTokens');
    const before = tokensVersion();
    await tokenEndpointWrites(one, issuer);
    await tokenEndpointWrites(two, issuer);
    // The other instance's revocation was announced: the token look-ups are forgotten, the client look-up is not.
    await eventually(() => tokensVersion() !== before, 1000, 'the revocation heard');
    assert.equal(await one.applications.findApplicationByClientId(issuer.application.clientId), held);
  });

  it('sees its own new secret at once', async () => {
    const { issuer } = await cachedApplication();
    const secretHash = hashCredential(rawToken('secret'));
    await one.applications.replaceApplicationSecret(issuer.application.id, secretHash, T0 + MINUTE, auditEvent('application.secret_rotated'));
    assert.equal((await one.applications.findApplicationByClientId(issuer.application.clientId))?.secretHash, secretHash);
  });

  it("sees the other instance's edit, new secret and deletion once its notice arrives", async () => {
    const { issuer: { application } } = await cachedApplication();
    const lookUp = () => one.applications.findApplicationByClientId(application.clientId);
    await two.applications.updateApplication(application.id, application.ownerId, { confidential: false }, T0 + MINUTE, () => auditEvent('application.updated'));
    await eventually(async () => (await lookUp())?.confidential === false, 1000, 'the edit seen');
    const secretHash = hashCredential(rawToken('secret'));
    await two.applications.replaceApplicationSecret(application.id, secretHash, T0 + MINUTE, auditEvent('application.secret_rotated'));
    await eventually(async () => (await lookUp())?.secretHash === secretHash, 1000, 'the new secret seen');
    await two.applications.deleteApplication(application.id, application.ownerId, auditEvent('application.deleted'));
    await eventually(async () => (await lookUp()) === undefined, 1000, 'the deletion seen');
  });

  it('answers from memory: a change no store announces is not seen', async () => {
    const { issuer: { application }, held } = await cachedApplication();
    // Behind the stores' back, as only a database administrator can, from a third set of connections.
    const other = openPostgres(instances.database.url);
    try {
      await other.db.updateTable('applications').set({ name: 'Unannounced' }).where('id', '=', application.id).execute();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await one.applications.findApplicationByClientId(application.clientId), held);
    } finally {
      await other.close();
    }
  });
});
