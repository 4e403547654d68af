import { it } from 'node:test';
import assert from 'node:assert/strict';
import { holdSecretForReveal, takeSecretToReveal } from '../../src/accounts/secret-reveals.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import type { Storage } from '../../src/storage/stores.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, DAY, createApplication, createUser } from './fixtures.ts';

async function sessionFor(storage: Storage, userId: number, id: string): Promise<string> {
  await storage.sessions.createSession({ idHash: hashCredential(id), userId, csrfToken: 'csrf', createdAt: T0, lastSeenAt: T0, expiresAt: T0 + DAY });
  return id;
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

    await holdSecretForReveal(deps, { sessionId, applicationId: application.id, secret: 'folio_cs_the-secret' });
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

    await holdSecretForReveal(deps, { sessionId, applicationId: application.id, secret: 'first' });
    await holdSecretForReveal(deps, { sessionId, applicationId: application.id, secret: 'second' });
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), 'second');

    await holdSecretForReveal(deps, { sessionId, applicationId: application.id, secret: 'late' });
    clock.advance(11 * MINUTE);
    assert.equal(await takeSecretToReveal(deps, { sessionId, applicationId: application.id }), undefined);

    await holdSecretForReveal(deps, { sessionId, applicationId: application.id, secret: 'again' });
    await storage.sessions.deleteSession(hashCredential(sessionId));
    assert.equal((await db.selectFrom('secret_reveals').selectAll().execute()).length, 0);
  });
});
