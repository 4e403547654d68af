// An access token issued beside a refresh token records that refresh token's hash and
// is refused once it is revoked or gone (kysely/tokens.ts). Revoking a grant or an
// authorization marks all its refresh tokens, so such access tokens need no index by
// grant, which took a page of it in every token commit: the index holds only tokens
// issued alone. The foreign key to grants goes, as a partial index cannot serve its
// cascade: deleting an application deletes those tokens itself (applications.ts).
import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';
import type { StorageKind } from '../schema.ts';
import { required } from './columns.ts';

export function accessTokensByRefreshTokenMigration(kind: StorageKind): Migration {
  return {
    up: (db) => (kind === 'sqlite' ? rebuildSqliteTable(db) : alterPostgresTable(db)),
  };
}

/** Partial: a query uses it only when it states the condition (grants.ts, applications.ts). */
function createGrantIndex(db: Kysely<any>): Promise<void> {
  return db.schema.createIndex('access_tokens_grant').on('access_tokens').column('grant_id')
    .where(sql<SqlBool>`${sql.ref('refresh_token_hash')} is null`).execute();
}

/**
 * SQLite cannot drop a foreign key, so the table is made anew, as its manual describes
 * (ALTER TABLE, "other kinds of table schema changes"), in one transaction with the
 * migration's record (sqlite/dialect.ts); on a table that already has the column it
 * does nothing. No other table refers to this one: foreign keys may stay on.
 */
async function rebuildSqliteTable(db: Kysely<any>): Promise<void> {
  const columns = ['token_hash', 'grant_id', 'application_id', 'user_id', 'scope', 'created_at', 'expires_at', 'revoked_at', 'origin_code_hash'];
  const { rows: existing } = await sql<{ name: string }>`select name from pragma_table_info('access_tokens')`.execute(db);
  if (existing.some((column) => column.name === 'refresh_token_hash')) return;
  await db.schema.createTable('access_tokens_next')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('grant_id', 'integer', required)
    .addColumn('application_id', 'integer', required)
    .addColumn('user_id', 'integer', required)
    .addColumn('scope', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addColumn('expires_at', 'bigint', required)
    .addColumn('revoked_at', 'bigint')
    .addColumn('origin_code_hash', 'text')
    .addColumn('refresh_token_hash', 'text')
    .execute();
  const listed = sql.join(columns.map((column) => sql.ref(column)));
  await sql`insert into access_tokens_next (${listed}) select ${listed} from access_tokens`.execute(db);
  await db.schema.dropTable('access_tokens').execute();
  await db.schema.alterTable('access_tokens_next').renameTo('access_tokens').execute();
  // The table's other indexes went with it (migrations 0001 and 0003).
  await db.schema.createIndex('access_tokens_expires').on('access_tokens').column('expires_at').execute();
  await db.schema.createIndex('access_tokens_revoked_at').on('access_tokens').column('revoked_at')
    .where('revoked_at', 'is not', null).execute();
  await createGrantIndex(db);
}

async function alterPostgresTable(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_tokens').addColumn('refresh_token_hash', 'text').execute();
  // Named by PostgreSQL when migration 0001 made it: found, not assumed.
  const { rows } = await sql<{ name: string }>`
    select conname as name from pg_constraint
    where conrelid = 'access_tokens'::regclass and confrelid = 'grants'::regclass and contype = 'f'`.execute(db);
  for (const { name } of rows) await db.schema.alterTable('access_tokens').dropConstraint(name).execute();
  await db.schema.dropIndex('access_tokens_grant').execute();
  await createGrantIndex(db);
}
