import { it } from 'node:test';
import assert from 'node:assert/strict';
import { StorageConflictError } from '../../src/storage/errors.ts';
import { describeStorageContract } from './contract.ts';
import { T0, auditEvent, codeFor, createApplication, createGrant, createUser, tokenPairFor } from './fixtures.ts';

describeStorageContract('users', (target) => {
  it('creates a user with a lowercased, trimmed email and finds it by any casing', async () => {
    const { storage } = target();
    const user = await storage.users.createUser({ email: '  Ada@Example.COM ', name: 'Ada', passwordHash: 'h', now: T0 }, () => auditEvent('user.created'));
    assert.equal(user.email, 'ada@example.com');
    assert.deepEqual(await storage.users.findUserCredentials('ADA@example.com'), { ...user, passwordHash: 'h' });
    assert.deepEqual(await storage.users.findUserById(user.id), user);
  });

  it('refuses a second user with the same email in another casing', async () => {
    const { storage } = target();
    await createUser(storage, 'ada@example.com');
    await assert.rejects(createUser(storage, 'ADA@example.com'), (error: unknown) =>
      error instanceof StorageConflictError && error.what === 'email');
  });

  it('finds nobody for unknown emails and ids', async () => {
    const { storage } = target();
    assert.equal(await storage.users.findUserCredentials('nobody@example.com'), undefined);
    assert.equal(await storage.users.findUserById(999), undefined);
  });

  it('reports whether any user exists', async () => {
    const { storage } = target();
    assert.equal(await storage.users.hasAnyUser(), false);
    await createUser(storage);
    assert.equal(await storage.users.hasAnyUser(), true);
  });
});

describeStorageContract('applications', (target) => {
  it('creates an application and finds it by client_id and id', async () => {
    const { storage } = target();
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    assert.deepEqual(application.redirectUris, ['https://app.example/callback', 'urn:ietf:wg:oauth:2.0:oob']);
    assert.deepEqual(application.scopes, ['read']);
    assert.equal(application.confidential, true);
    assert.equal(application.pkceRequired, false);
    assert.deepEqual(await storage.applications.findApplicationByClientId(application.clientId), application);
    assert.deepEqual(await storage.applications.findApplicationById(application.id), application);
    assert.equal(await storage.applications.findApplicationByClientId('unknown'), undefined);
  });

  it('refuses a duplicate client_id', async () => {
    const { storage } = target();
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    await assert.rejects(
      storage.applications.createApplication({ ...application, name: 'Copy' }, T0, () => auditEvent('application.created')),
      StorageConflictError,
    );
  });

  it('lists only the applications an owner has', async () => {
    const { storage } = target();
    const [alice, bob] = [await createUser(storage), await createUser(storage)];
    const first = await createApplication(storage, alice, 'First');
    const second = await createApplication(storage, alice, 'Second');
    await createApplication(storage, bob, 'Bob');
    const listed = await storage.applications.listApplicationsOwnedBy(alice.id);
    assert.deepEqual(listed.map((app) => app.id), [first.id, second.id]);
  });

  it('updates only the fields given, and only for the owner', async () => {
    const { storage } = target();
    const [owner, stranger] = [await createUser(storage), await createUser(storage)];
    const application = await createApplication(storage, owner);
    const changes = { name: 'Renamed', redirectUris: ['http://127.0.0.1/cb'], pkceRequired: true };
    assert.equal(await storage.applications.updateApplication(application.id, stranger.id, changes, T0 + 1, () => auditEvent('application.updated')), undefined);
    const updated = await storage.applications.updateApplication(application.id, owner.id, changes, T0 + 1, () => auditEvent('application.updated'));
    assert.deepEqual(updated, { ...application, ...changes, updatedAt: T0 + 1 });
    assert.deepEqual(await storage.applications.findApplicationById(application.id), updated);
  });

  it('replaces the secret hash so the old one no longer matches', async () => {
    const { storage } = target();
    const application = await createApplication(storage, await createUser(storage));
    assert.equal(await storage.applications.replaceApplicationSecret(application.id, 'new-hash', T0 + 5, auditEvent('application.secret_rotated')), true);
    const stored = await storage.applications.findApplicationById(application.id);
    assert.equal(stored?.secretHash, 'new-hash');
    assert.equal(stored?.updatedAt, T0 + 5);
    assert.equal(await storage.applications.replaceApplicationSecret(999, 'x', T0, auditEvent('application.secret_rotated')), false);
  });

  it('deletes an application with every grant, code, token and consent it holds, only for its owner', async () => {
    const { storage, db } = target();
    const { user, application, grant } = await createGrant(storage);
    const tokens = tokenPairFor(grant);
    await storage.tokens.saveTokens(tokens);
    await storage.codes.saveAuthorizationCode(codeFor(grant));
    await storage.consents.rememberConsent(user.id, application.id, ['read'], T0, auditEvent('consent.granted'));

    assert.equal(await storage.applications.deleteApplication(application.id, user.id, auditEvent('application.deleted')), false);
    assert.equal(await storage.applications.deleteApplication(application.id, application.ownerId, auditEvent('application.deleted')), true);

    assert.equal(await storage.applications.findApplicationById(application.id), undefined);
    assert.equal(await storage.grants.findGrant(grant.id), undefined);
    assert.equal(await storage.tokens.findAccessToken(tokens.access.tokenHash), undefined);
    assert.equal(await storage.tokens.findRefreshToken(tokens.refresh!.tokenHash), undefined);
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);
    const remaining = await db.selectFrom('authorization_codes').select('code_hash').execute();
    assert.deepEqual(remaining, []);
  });
});
