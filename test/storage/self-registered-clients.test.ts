// Clients no person registered (migration 0016): self-registered (RFC 7591) and
// metadata-document clients are applications without an owner, so grants, codes,
// tokens and connections work for them unchanged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, migrateUpTo } from '../../src/storage/migrations/provider.ts';
import type { NewSelfRegisteredClient } from '../../src/domain/records.ts';
import { describeStorageContract, forEachEmptyDatabase } from './contract.ts';
import { MINUTE, T0, auditEvent, createUser, revokeGrant, tokenPairFor } from './fixtures.ts';

const DOCUMENT_URL = 'https://assistant.example/client.json';

function client(overrides: Partial<NewSelfRegisteredClient> = {}): NewSelfRegisteredClient {
  return {
    name: 'Assistant', clientId: DOCUMENT_URL, secretHash: 'a'.repeat(64), redirectUris: ['http://127.0.0.1/callback'],
    confidential: false, pkceRequired: true, scopes: ['read'], ...overrides,
  };
}

describeStorageContract('self-registered clients', (target) => {
  it('registers a client with no owner, recording application.registered with it', async () => {
    const { storage } = target();
    const registered = await storage.applications.registerClient(client({ clientId: 'self-1' }), T0, (made) => ({ ...auditEvent('application.registered'), applicationId: made.id }));
    assert.equal(registered.ownerId, null);
    assert.equal(registered.registration, 'dynamic');
    assert.deepEqual(await storage.applications.findApplicationByClientId('self-1'), registered);
  });

  it('makes a metadata-document client on first use and brings it up to its document after, recording only the first', async () => {
    const { storage, db } = target();
    const made = await storage.applications.upsertMetadataDocumentClient(client(), T0, () => auditEvent('application.registered'));
    assert.equal(made.registration, 'metadata_document');
    assert.equal(made.ownerId, null);
    const updated = await storage.applications.upsertMetadataDocumentClient(
      client({ name: 'Assistant 2', redirectUris: ['https://assistant.example/cb'], secretHash: 'b'.repeat(64) }), T0 + MINUTE, () => auditEvent('application.registered'),
    );
    assert.deepEqual(updated, { ...made, name: 'Assistant 2', redirectUris: ['https://assistant.example/cb'], updatedAt: T0 + MINUTE });
    assert.deepEqual(await storage.applications.findApplicationByClientId(DOCUMENT_URL), updated);
    const events = await db.selectFrom('audit_events').select('type').where('type', '=', 'application.registered').execute();
    assert.equal(events.length, 1);
  });

  it('never turns a client of another kind into a metadata-document client', async () => {
    const { storage } = target();
    await storage.applications.registerClient(client(), T0, () => auditEvent('application.registered'));
    await assert.rejects(storage.applications.upsertMetadataDocumentClient(client({ name: 'Hijack' }), T0, () => auditEvent('application.registered')));
    assert.equal((await storage.applications.findApplicationByClientId(DOCUMENT_URL))?.name, 'Assistant');
  });

  it('lists a connected client with no owner, and disconnecting it ends its tokens', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    const application = await storage.applications.upsertMetadataDocumentClient(client(), T0, () => auditEvent('application.registered'));
    const grant = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0);
    const tokens = tokenPairFor(grant);
    assert.equal(await storage.tokens.saveTokens(tokens), true);
    const [connection] = await storage.grants.listConnectedApplications(user.id);
    assert.deepEqual({ ...connection, lastUsedAt: undefined }, {
      grantId: grant.id, applicationId: application.id, applicationName: 'Assistant', clientId: DOCUMENT_URL, ownerName: null,
      registration: 'metadata_document', scope: ['read'], grantedAt: T0, lastUsedAt: undefined,
    });
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    assert.notEqual((await storage.tokens.findAccessToken(tokens.access.tokenHash))?.revokedAt ?? null, null);
    assert.deepEqual(await storage.grants.listConnectedApplications(user.id), []);
  });
});

forEachEmptyDatabase((kind, openDatabase) => {
  describe(`migration 0016 on applications from before it (${kind})`, () => {
    it('keeps every application with its id and grants, registered by a person, and lets a new one have no owner', async () => {
      const { db } = await openDatabase();
      try {
        await migrateUpTo(db, kind, '0014-trusted-devices-and-native-codes');
        const insert = async (table: string, values: Record<string, unknown>) => {
          const columns = sql.join(Object.keys(values).map((column) => sql.ref(column)));
          const { rows } = await sql<{ id: number }>`insert into ${sql.table(table)} (${columns}) values (${sql.join(Object.values(values))}) returning id`.execute(db);
          return rows[0]!.id;
        };
        const person = (email: string) => ({ email, name: email, password_hash: 'x', created_at: T0, updated_at: T0 });
        const application = (ownerId: number, clientId: string) => ({
          owner_id: ownerId, name: 'Budget App', client_id: clientId, secret_hash: 'f'.repeat(64), redirect_uris: '[]',
          confidential: 1, pkce_required: 0, scopes: 'read', created_at: T0, updated_at: T0,
        });
        const ownerId = await insert('users', person('developer@example.com'));
        const gone = await insert('applications', application(ownerId, 'gone'));
        const kept = await insert('applications', application(ownerId, 'kept'));
        await sql`delete from applications where id = ${gone}`.execute(db);
        const grantId = await insert('grants', { user_id: ownerId, application_id: kept, scope: 'read', created_at: T0 });

        await migrateToLatest(db, kind);
        const rows = await db.selectFrom('applications').select(['id', 'owner_id', 'client_id', 'registration']).execute();
        assert.deepEqual(rows, [{ id: kept, owner_id: ownerId, client_id: 'kept', registration: 'person' }]);
        assert.deepEqual((await db.selectFrom('grants').select('id').execute()).map((grant) => grant.id), [grantId]);
        const selfRegistered = await insert('applications', { ...application(ownerId, 'self'), owner_id: null, registration: 'dynamic' });
        assert.ok(selfRegistered > kept, 'the id of a deleted application is never given again');
        // Deleting the owner still takes their applications and grants with them.
        await sql`delete from users where id = ${ownerId}`.execute(db);
        assert.deepEqual(await db.selectFrom('grants').select('id').execute(), []);
        assert.deepEqual((await db.selectFrom('applications').select('client_id').execute()).map((row) => row.client_id), ['self']);
      } finally {
        await db.destroy();
      }
    });
  });
});
