// Migration 0010 on a database that holds tokens from before it: they keep
// working, unbound to any refresh token, and are revoked and deleted by grant as
// they always were; the foreign key to grants is gone. On SQLite, whose table is
// made anew, every value survives and a second run changes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { accessTokensByRefreshTokenMigration } from '../../src/storage/migrations/0010-access-tokens-by-refresh-token.ts';
import { migrateUpTo } from '../../src/storage/migrations/provider.ts';
import type { Database, StorageKind } from '../../src/storage/schema.ts';
import { forEachEmptyDatabase } from './contract.ts';
import { grantFromBefore } from './rows-from-before.ts';
import type { Grant, OwnedApplication } from '../../src/domain/records.ts';
import { T0, MINUTE, accessTokenFor, auditEvent, deleteApplication, refreshTokenFor } from './fixtures.ts';

const ORIGIN = 'c'.repeat(64);

/**
 * The table's columns before the migration, named: every statement runs as a named
 * prepared statement on PostgreSQL, and one that selects * fails once a column is added.
 */
const BEFORE_0010 = ['token_hash', 'grant_id', 'application_id', 'user_id', 'scope', 'created_at', 'expires_at', 'revoked_at', 'origin_code_hash'] as const;

/** Rows as a build before migration 0010 wrote them: no refresh_token_hash column. */
async function tokensFromBefore(database: OpenDatabase) {
  const { db } = database;
  const { user, application, grant } = await grantFromBefore(db);
  const fromCode = { ...accessTokenFor(grant), originCodeHash: ORIGIN };
  const alone = accessTokenFor(grant);
  const refresh = { ...refreshTokenFor(grant), originCodeHash: ORIGIN };
  const row = (token: typeof alone) => ({
    token_hash: token.tokenHash, grant_id: token.grantId, application_id: token.applicationId, user_id: token.userId,
    scope: token.scope.join(' '), created_at: token.createdAt, expires_at: token.expiresAt, revoked_at: null, origin_code_hash: token.originCodeHash,
  });
  await sql`insert into access_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at, revoked_at, origin_code_hash)
    values ${sql.join([fromCode, alone].map((token) => sql`(${sql.join(Object.values(row(token)))})`))}`.execute(db);
  await sql`insert into refresh_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at, revoked_at, origin_code_hash)
    values (${sql.join(Object.values(row(refresh)))})`.execute(db);
  return { user, application, grant, fromCode, alone, refresh };
}

async function foreignKeysOfAccessTokens(db: Kysely<Database>, kind: StorageKind): Promise<number> {
  const { rows } = kind === 'sqlite'
    ? await sql`select * from pragma_foreign_key_list('access_tokens')`.execute(db)
    : await sql`select conname from pg_constraint where conrelid = 'access_tokens'::regclass and contype = 'f'`.execute(db);
  return rows.length;
}

function describeOn(kind: StorageKind, openDatabase: () => Promise<OpenDatabase>) {
  describe(`migration 0010 on tokens from before it (${kind})`, () => {
    it('keeps them working, revokes them by grant and deletes them with their application', async () => {
      const database = await openDatabase();
      const { db } = database;
      const storage = createStorage(database);
      try {
        await migrateUpTo(db, kind, '0009-activity-index');
        const before = await tokensFromBefore(database);
        const rowsBefore = await db.selectFrom('access_tokens').select(BEFORE_0010).orderBy('token_hash').execute();
        assert.equal(await foreignKeysOfAccessTokens(db, kind), 1);

        await storage.migrate();
        assert.equal(await foreignKeysOfAccessTokens(db, kind), 0);
        const rowsAfter = await db.selectFrom('access_tokens').select([...BEFORE_0010, 'refresh_token_hash']).orderBy('token_hash').execute();
        assert.deepEqual(rowsAfter, rowsBefore.map((row) => ({ ...row, refresh_token_hash: null })));
        assert.deepEqual(await storage.tokens.findAccessToken(before.alone.tokenHash), before.alone);
        if (kind === 'sqlite') {
          // Killed after its COMMIT and before Kysely recorded it, the next start runs it again.
          await accessTokensByRefreshTokenMigration(kind).up(db);
          assert.deepEqual(await db.selectFrom('access_tokens').select([...BEFORE_0010, 'refresh_token_hash']).orderBy('token_hash').execute(), rowsAfter);
        }

        // Revoking the authorization from the code takes its tokens, unbound, by grant.
        await storage.grants.revokeAuthorization(before.grant.id, ORIGIN, T0 + MINUTE, auditEvent('token.revoked'));
        assert.equal((await storage.tokens.findAccessToken(before.fromCode.tokenHash))?.revokedAt, T0 + MINUTE);
        assert.equal((await storage.tokens.findRefreshToken(before.refresh.tokenHash))?.revokedAt, T0 + MINUTE);
        assert.equal((await storage.tokens.findAccessToken(before.alone.tokenHash))?.revokedAt, null);

        // No foreign key cascades to them now: the deletion takes them itself.
        await deleteApplication(storage, before.application);
        assert.deepEqual(await db.selectFrom('access_tokens').select('token_hash').execute(), []);
      } finally {
        await storage.close();
      }
    });
  });
}

forEachEmptyDatabase(describeOn);
