// A change and its audit event are one transaction (stores.ts): each commits only
// with the other. An event whose detail cannot be serialized (a BigInt) makes the
// event's write fail inside the change's transaction, standing in for any failure
// between the two writes: a full disk, a lost connection, a crash.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { NewAuditEvent } from '../../src/domain/records.ts';
import type { Database } from '../../src/storage/schema.ts';
import { StorageConflictError } from '../../src/storage/errors.ts';
import { describeStorageContract } from './contract.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import { T0, MINUTE, DAY, accessTokenFor, auditEvent, codeFor, createApplication, createGrant, createUser, tokenPairFor } from './fixtures.ts';

const unwritable: NewAuditEvent = auditEvent('token.revoked', T0, { size: 1n });

async function eventTypes(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('audit_events').select('type').orderBy('id').execute();
  return rows.map((row) => row.type);
}

describeStorageContract('changes and their audit events', (target) => {
  it('a new user and its event: both or neither', async () => {
    const { storage, db } = target();
    const user = await storage.users.createUser({ email: 'ada@example.com', name: 'Ada', passwordHash: 'h', now: T0 }, (created) => ({
      ...auditEvent('user.created'), userId: created.id,
    }));
    const [event] = await db.selectFrom('audit_events').selectAll().execute();
    assert.deepEqual({ type: event?.type, userId: event?.user_id }, { type: 'user.created', userId: user.id });

    await assert.rejects(storage.users.createUser({ email: 'bob@example.com', name: 'Bob', passwordHash: 'h', now: T0 }, () => unwritable));
    assert.equal(await storage.users.findUserCredentials('bob@example.com'), undefined);
    // A refused change records nothing either.
    await assert.rejects(createUser(storage, 'ADA@example.com'), StorageConflictError);
    assert.deepEqual(await eventTypes(db), ['user.created']);
  });

  it('a new, changed, re-keyed or deleted application and its event: both or neither', async () => {
    const { storage, db } = target();
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    const input = { ...application, clientId: 'another-client' };
    await assert.rejects(storage.applications.createApplication(input, T0, () => unwritable));
    assert.equal(await storage.applications.findApplicationByClientId('another-client'), undefined);

    const changes = { name: 'Renamed' };
    await assert.rejects(storage.applications.updateApplication(application.id, owner.id, changes, T0 + 1, () => unwritable));
    await assert.rejects(storage.applications.replaceApplicationSecret(application.id, 'new-hash', T0 + 1, unwritable));
    await assert.rejects(storage.applications.deleteApplication(application.id, owner.id, unwritable));
    assert.deepEqual(await storage.applications.findApplicationById(application.id), application);
    assert.deepEqual(await eventTypes(db), ['user.created', 'application.created']);

    // Nothing to change: nothing recorded.
    const stranger = await createUser(storage);
    assert.equal(await storage.applications.updateApplication(application.id, stranger.id, changes, T0 + 1, () => auditEvent('application.updated')), undefined);
    assert.equal(await storage.applications.replaceApplicationSecret(application.id + 100, 'x', T0 + 1, auditEvent('application.secret_rotated')), false);
    assert.equal(await storage.applications.deleteApplication(application.id, stranger.id, auditEvent('application.deleted')), false);
    assert.deepEqual(await eventTypes(db), ['user.created', 'application.created', 'user.created']);

    await storage.applications.updateApplication(application.id, owner.id, changes, T0 + 1, () => auditEvent('application.updated'));
    await storage.applications.replaceApplicationSecret(application.id, 'new-hash', T0 + 1, auditEvent('application.secret_rotated'));
    await storage.applications.deleteApplication(application.id, owner.id, auditEvent('application.deleted'));
    assert.deepEqual((await eventTypes(db)).slice(3), ['application.updated', 'application.secret_rotated', 'application.deleted']);
  });

  it('a consent given or withdrawn and its event: both or neither', async () => {
    const { storage, db } = target();
    const user = await createUser(storage);
    const application = await createApplication(storage, await createUser(storage));
    await assert.rejects(storage.consents.rememberConsent(user.id, application.id, ['read'], T0, unwritable));
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);

    await storage.consents.rememberConsent(user.id, application.id, ['read'], T0, auditEvent('consent.granted'));
    await assert.rejects(storage.consents.forgetConsent(user.id, application.id, unwritable));
    assert.notEqual(await storage.consents.findConsent(user.id, application.id), undefined);
    await storage.consents.forgetConsent(user.id, application.id, auditEvent('consent.denied'));
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);
    assert.deepEqual((await eventTypes(db)).slice(3), ['consent.granted', 'consent.denied']);
  });

  it('a revoked access token or authorization and its event: both or neither', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    const access = { ...accessTokenFor(grant), originCodeHash: code.codeHash };
    await storage.tokens.saveTokens({ access });
    const pair = tokenPairFor(grant);
    const authorization = { access: { ...pair.access, originCodeHash: code.codeHash }, refresh: { ...pair.refresh!, originCodeHash: code.codeHash } };
    await storage.tokens.saveTokens(authorization);
    const before = await eventTypes(db);

    await assert.rejects(storage.tokens.revokeAccessToken(access.tokenHash, T0 + MINUTE, unwritable));
    await assert.rejects(storage.grants.revokeAuthorization(grant.id, code.codeHash, T0 + MINUTE, unwritable));
    assert.equal((await storage.tokens.findAccessToken(access.tokenHash))?.revokedAt, null);
    assert.equal((await storage.tokens.findRefreshToken(authorization.refresh.tokenHash))?.revokedAt, null);
    assert.deepEqual(await eventTypes(db), before);

    assert.equal(await storage.tokens.revokeAccessToken(access.tokenHash, T0 + MINUTE, auditEvent('token.revoked')), true);
    // Already revoked: nothing recorded.
    assert.equal(await storage.tokens.revokeAccessToken(access.tokenHash, T0 + MINUTE, auditEvent('token.revoked')), false);
    await storage.grants.revokeAuthorization(grant.id, code.codeHash, T0 + MINUTE, auditEvent('refresh_token.reused'));
    assert.equal((await storage.tokens.findRefreshToken(authorization.refresh.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.deepEqual((await eventTypes(db)).slice(before.length), ['token.revoked', 'refresh_token.reused']);
  });

  it('disconnecting an application ends its grant, tokens and consent, and records it, all together', async () => {
    const { storage, db } = target();
    const { user, application, grant } = await createGrant(storage);
    const tokens = tokenPairFor(grant);
    await storage.tokens.saveTokens(tokens);
    await storage.consents.rememberConsent(user.id, application.id, ['read'], T0, auditEvent('consent.granted'));
    const before = await eventTypes(db);

    await assert.rejects(storage.grants.disconnectApplication(grant.id, T0 + MINUTE, unwritable));
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, null);
    assert.equal((await storage.tokens.findAccessToken(tokens.access.tokenHash))?.revokedAt, null);
    assert.notEqual(await storage.consents.findConsent(user.id, application.id), undefined);
    assert.deepEqual(await eventTypes(db), before);

    await storage.grants.disconnectApplication(grant.id, T0 + MINUTE, auditEvent('grant.revoked'));
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.tokens.findAccessToken(tokens.access.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.equal((await storage.tokens.findRefreshToken(tokens.refresh!.tokenHash))?.revokedAt, T0 + MINUTE);
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);
    assert.deepEqual((await eventTypes(db)).slice(before.length), ['grant.revoked']);
  });

  it('a session started or ended and its sign-in or sign-out event: both or neither', async () => {
    const { storage, db } = target();
    const user = await createUser(storage);
    const session = {
      idHash: hashCredential('folio_ss_audited'), userId: user.id, csrfToken: 'csrf', createdAt: T0, lastSeenAt: T0, expiresAt: T0 + DAY,
    };
    const before = await eventTypes(db);

    await assert.rejects(storage.sessions.createSession(session, unwritable));
    assert.equal(await storage.sessions.findSession(session.idHash), undefined);
    await storage.sessions.createSession(session, auditEvent('sign_in.success'));

    await assert.rejects(storage.sessions.deleteSession(session.idHash, unwritable));
    assert.deepEqual(await storage.sessions.findSession(session.idHash), session);
    assert.equal(await storage.sessions.deleteSession(session.idHash, auditEvent('sign_out')), true);
    assert.equal(await storage.sessions.findSession(session.idHash), undefined);
    // Already ended (signed out in another tab): nothing recorded.
    assert.equal(await storage.sessions.deleteSession(session.idHash, auditEvent('sign_out')), false);
    assert.deepEqual((await eventTypes(db)).slice(before.length), ['sign_in.success', 'sign_out']);
  });
});
