// A new client secret is held for its one showing in the transaction that stores its
// hash (stores.ts, ApplicationStore): a reveal that cannot be written undoes the
// registration or the rotation, so no secret is ever stored that nobody can be shown.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { revealTo, takeSecretToReveal } from '../../src/accounts/secret-reveals.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import type { Database } from '../../src/storage/schema.ts';
import { type Storage } from '../../src/storage/stores.ts';
import { SessionEndedError } from '../../src/storage/errors.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, DAY, auditEvent, createApplication, createUser } from './fixtures.ts';

async function sessionFor(storage: Storage, userId: number, id: string): Promise<string> {
  await storage.sessions.createSession({ idHash: hashCredential(id), userId, csrfToken: 'csrf', createdAt: T0, lastSeenAt: T0, expiresAt: T0 + DAY });
  return id;
}

async function revealRows(db: Kysely<Database>): Promise<number> {
  return (await db.selectFrom('secret_reveals').selectAll().execute()).length;
}

describeStorageContract('secret reveals', (target) => {
  it('hands a held secret out once, sealed at rest, only to the session that holds it', async () => {
    const { storage, db } = target();
    const clock = new FixedClock(T0);
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    const sessionId = await sessionFor(storage, owner.id, 'folio_ss_mine');
    const otherSession = await sessionFor(storage, owner.id, 'folio_ss_other');
    const deps = { storage, clock, random: cryptoRandom };

    const reveal = revealTo(deps, sessionId)(application.id, 'folio_cs_the-secret');
    assert.equal(await storage.applications.replaceApplicationSecret(application.id, hashCredential('folio_cs_the-secret'), T0, auditEvent('application.secret_rotated'), reveal), true);
    const rows = await db.selectFrom('secret_reveals').selectAll().execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.session_id_hash, hashCredential(sessionId));
    assert.doesNotMatch(rows[0]!.sealed_secret, /the-secret/);

    assert.equal(await takeSecretToReveal(deps, { sessionId: otherSession, applicationId: application.id }), undefined);
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), 'folio_cs_the-secret');
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), undefined);
  });

  it('replaces a waiting secret, forgets expired ones, and goes with its session', async () => {
    const { storage, db } = target();
    const clock = new FixedClock(T0);
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    const sessionId = await sessionFor(storage, owner.id, 'folio_ss_a');
    const deps = { storage, clock, random: cryptoRandom };
    const rotate = (secret: string) => storage.applications.replaceApplicationSecret(
      application.id, hashCredential(secret), clock.now(), auditEvent('application.secret_rotated'), revealTo(deps, sessionId)(application.id, secret),
    );

    await rotate('first');
    await rotate('second');
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), 'second');

    await rotate('late');
    clock.advance(11 * MINUTE);
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), undefined);

    await rotate('again');
    await storage.sessions.deleteSession(hashCredential(sessionId));
    assert.equal(await revealRows(db), 0);
  });

  it('holds a new application\'s secret with the application, which its reveal names', async () => {
    const { storage } = target();
    const clock = new FixedClock(T0);
    const owner = await createUser(storage);
    const sessionId = await sessionFor(storage, owner.id, 'folio_ss_new');
    const deps = { storage, clock, random: cryptoRandom };
    const application = await storage.applications.createApplication({
      ownerId: owner.id, name: 'New App', clientId: 'new-app', secretHash: hashCredential('folio_cs_new'),
      redirectUris: ['https://app.example/callback'], confidential: true, pkceRequired: false, scopes: ['read'],
    }, T0, () => auditEvent('application.created'), (created) => revealTo(deps, sessionId)(created.id, 'folio_cs_new'));
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), 'folio_cs_new');
  });

  it('a secret and its reveal: both or neither', async () => {
    const { storage, db } = target();
    const clock = new FixedClock(T0);
    const owner = await createUser(storage);
    const application = await createApplication(storage, owner);
    const deps = { storage, clock, random: cryptoRandom };
    // A session signed out between the form's POST and its write: the reveal's row
    // would name a session that is gone, and its foreign key refuses it.
    const signedOut = revealTo(deps, 'folio_ss_signed_out');

    await assert.rejects(storage.applications.replaceApplicationSecret(
      application.id, hashCredential('folio_cs_lost'), T0 + 1, auditEvent('application.secret_rotated'), signedOut(application.id, 'folio_cs_lost'),
    ), SessionEndedError);
    assert.deepEqual(await storage.applications.findApplicationById(application.id), application);

    await assert.rejects(storage.applications.createApplication(
      { ...application, clientId: 'never-made' }, T0, () => auditEvent('application.created'), (created) => signedOut(created.id, 'folio_cs_never'),
    ), SessionEndedError);
    assert.equal(await storage.applications.findApplicationByClientId('never-made'), undefined);
    assert.deepEqual((await db.selectFrom('audit_events').select('type').execute()).map((row) => row.type), ['user.created', 'application.created']);

    // No application to rotate: nothing recorded, nothing held.
    const sessionId = await sessionFor(storage, owner.id, 'folio_ss_b');
    assert.equal(await storage.applications.replaceApplicationSecret(
      application.id + 100, hashCredential('x'), T0 + 1, auditEvent('application.secret_rotated'), revealTo(deps, sessionId)(application.id, 'x'),
    ), false);
    assert.equal(await revealRows(db), 0);
  });
});
