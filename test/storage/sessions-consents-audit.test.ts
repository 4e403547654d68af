import { it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { eventsOfUser } from '../../src/storage/kysely/audit.ts';
import { ACTIVITY_TYPES } from '../../src/web/activity-page.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import type { Session } from '../../src/domain/records.ts';
import { ApplicationGoneError } from '../../src/storage/errors.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, DAY, auditEvent, createApplication, createUser, deleteApplication } from './fixtures.ts';

describeStorageContract('sessions', (target) => {
  it('creates, finds, touches and deletes a session by the hash of its id', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    const session: Session = {
      idHash: hashCredential('folio_ss_session'),
      userId: user.id,
      csrfToken: 'csrf-token',
      createdAt: T0,
      lastSeenAt: T0,
      expiresAt: T0 + DAY,
    };
    await storage.sessions.createSession(session);
    assert.deepEqual(await storage.sessions.findSession(session.idHash), session);

    await storage.sessions.touchSession(session.idHash, T0 + MINUTE);
    assert.deepEqual(await storage.sessions.findSession(session.idHash), { ...session, lastSeenAt: T0 + MINUTE });

    await storage.sessions.deleteSession(session.idHash);
    assert.equal(await storage.sessions.findSession(session.idHash), undefined);
  });

  it('finds no session for an unknown id', async () => {
    const { storage } = target();
    assert.equal(await storage.sessions.findSession(hashCredential('unknown')), undefined);
  });
});

describeStorageContract('consents', (target) => {
  it('remembers consent per user and application and replaces it on a later answer', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    const application = await createApplication(storage, await createUser(storage));
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);

    await storage.consents.rememberConsent(user.id, application.id, ['read'], T0, auditEvent('consent.granted'));
    await storage.consents.rememberConsent(user.id, application.id, ['read', 'write'], T0 + MINUTE, auditEvent('consent.granted'));
    assert.deepEqual(await storage.consents.findConsent(user.id, application.id), {
      userId: user.id, applicationId: application.id, scope: ['read', 'write'], createdAt: T0 + MINUTE,
    });

    await storage.consents.forgetConsent(user.id, application.id, auditEvent('consent.denied'));
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);
  });

  it('refuses consent to an application deleted since its request was read, recording nothing', async () => {
    const { storage, db } = target();
    const user = await createUser(storage);
    const application = await createApplication(storage, await createUser(storage));
    await deleteApplication(storage, application);
    const eventsBefore = await db.selectFrom('audit_events').select('type').execute();
    await assert.rejects(
      storage.consents.rememberConsent(user.id, application.id, ['read'], T0, auditEvent('consent.granted')), ApplicationGoneError);
    assert.equal(await storage.consents.findConsent(user.id, application.id), undefined);
    assert.deepEqual(await db.selectFrom('audit_events').select('type').execute(), eventsBefore);
  });

  it('refuses a denial for an application deleted since its request was read, recording nothing', async () => {
    const { storage, db } = target();
    const user = await createUser(storage);
    const application = await createApplication(storage, await createUser(storage));
    await deleteApplication(storage, application);
    const eventsBefore = await db.selectFrom('audit_events').select('type').execute();
    await assert.rejects(storage.consents.forgetConsent(user.id, application.id, auditEvent('consent.denied')), ApplicationGoneError);
    assert.deepEqual(await db.selectFrom('audit_events').select('type').execute(), eventsBefore);
  });
});

describeStorageContract('audit events', (target) => {
  it('lists a user\'s events newest first, up to the limit, with their detail', async () => {
    const { storage } = target();
    const [user, other] = [await createUser(storage), await createUser(storage)];
    await storage.audit.recordEvent({
      type: 'sign_in.success', userId: user.id, applicationId: null, ip: '203.0.113.7', detail: { method: 'password' }, createdAt: T0,
    });
    await storage.audit.recordEvent({
      type: 'consent.granted', userId: user.id, applicationId: 7, ip: null, detail: { scope: ['read'] }, createdAt: T0 + MINUTE,
    });
    await storage.audit.recordEvent({
      type: 'sign_out', userId: user.id, applicationId: null, ip: null, detail: {}, createdAt: T0 + 2 * MINUTE,
    });
    await storage.audit.recordEvent({
      type: 'sign_in.failure', userId: other.id, applicationId: null, ip: null, detail: {}, createdAt: T0 + 3 * MINUTE,
    });

    const events = await storage.audit.listEventsForUser(user.id, 2);
    assert.deepEqual(events.map((event) => event.type), ['sign_out', 'consent.granted']);
    assert.deepEqual(events[1], {
      id: events[1]!.id, type: 'consent.granted', userId: user.id, applicationId: 7, ip: null,
      detail: { scope: ['read'] }, createdAt: T0 + MINUTE,
    });
    const all = await storage.audit.listEventsForUser(user.id, 10);
    assert.equal(all.length, 3);
    assert.deepEqual(all[2]?.detail, { method: 'password' });
  });

  it('orders events of the same millisecond by when they were recorded', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    for (const type of ['sign_in.success', 'sign_out'] as const) {
      await storage.audit.recordEvent({ type, userId: user.id, applicationId: null, ip: null, detail: {}, createdAt: T0 });
    }
    const events = await storage.audit.listEventsForUser(user.id, 10);
    assert.deepEqual(events.map((event) => event.type), ['sign_out', 'sign_in.success']);
  });

  it('lists only the event types asked for, newest first', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    for (const [minute, type] of [[0, 'sign_in.success'], [1, 'token.refreshed'], [2, 'grant.revoked'], [3, 'token.refreshed']] as const) {
      await storage.audit.recordEvent({ type, userId: user.id, applicationId: null, ip: null, detail: {}, createdAt: T0 + minute * MINUTE });
    }
    const events = await storage.audit.listEventsForUser(user.id, 10, ['sign_in.success', 'grant.revoked']);
    assert.deepEqual(events.map((event) => event.type), ['grant.revoked', 'sign_in.success']);
    assert.deepEqual(await storage.audit.listEventsForUser(user.id, 10, []), []);
  });

  it('lists routine token events when asked for them, though the user\'s index leaves them out', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    for (const [minute, type] of [[0, 'token.issued'], [1, 'sign_in.success'], [2, 'token.refreshed']] as const) {
      await storage.audit.recordEvent({ type, userId: user.id, applicationId: null, ip: null, detail: {}, createdAt: T0 + minute * MINUTE });
    }
    assert.deepEqual((await storage.audit.listEventsForUser(user.id, 10, ['token.refreshed', 'token.issued'])).map((event) => event.type),
      ['token.refreshed', 'token.issued']);
    assert.deepEqual((await storage.audit.listEventsForUser(user.id, 10, ['sign_in.success', 'token.issued'])).map((event) => event.type),
      ['sign_in.success', 'token.issued']);
    assert.deepEqual((await storage.audit.listEventsForUser(user.id, 10, ACTIVITY_TYPES)).map((event) => event.type), ['sign_in.success']);
  });

  it('finds the Activity page\'s events through the user\'s index, not by reading past routine ones', async () => {
    const { db, kind } = target();
    const query = eventsOfUser(db, 1, 50, ACTIVITY_TYPES).compile();
    // PostgreSQL would scan tables this small whatever their indexes: told not to, it
    // still may only use an index whose condition the query proves.
    const plan = await db.transaction().execute(async (trx) => {
      if (kind === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
      const explained = await trx.executeQuery(CompiledQuery.raw(`explain ${kind === 'sqlite' ? 'query plan ' : ''}${query.sql}`, [...query.parameters]));
      return JSON.stringify(explained.rows);
    });
    assert.match(plan, /audit_events_user_activity/);
  });
});
