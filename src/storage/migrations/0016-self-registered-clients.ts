// Clients no person registered: those that registered themselves (RFC 7591) and
// those known by a client ID metadata document. They are applications like any
// other, so grants, codes, tokens and consents work unchanged; they have no owner,
// and `registration` says how each came to be.
import { sql, type Kysely, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';
import { flag, required } from './columns.ts';

const COLUMNS = ['id', 'owner_id', 'name', 'client_id', 'secret_hash', 'redirect_uris', 'confidential', 'pkce_required', 'scopes', 'created_at', 'updated_at'];

export function selfRegisteredClientsMigration(kind: StorageKind): Migration {
  return {
    up: (db) => (kind === 'sqlite' ? rebuildSqliteTable(db) : alterPostgresTable(db)),
  };
}

async function alterPostgresTable(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('registration', 'text', (col) => col.notNull().defaultTo('person')).execute();
  await db.schema.alterTable('applications').alterColumn('owner_id', (col) => col.dropNotNull()).execute();
}

/**
 * SQLite cannot drop NOT NULL, so the table is made anew, as its manual describes
 * (ALTER TABLE, "other kinds of table schema changes"), with foreign keys off
 * (provider.ts) so that dropping the old table takes no grant with it. Run on a
 * table that already has the column, it does nothing.
 */
async function rebuildSqliteTable(db: Kysely<any>): Promise<void> {
  const { rows: [keys] } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
  if (keys?.foreign_keys !== 0) throw new Error('migration 0016 must run with foreign keys off, or it would delete every grant');
  const { rows: existing } = await sql<{ name: string }>`select name from pragma_table_info('applications')`.execute(db);
  if (existing.some((column) => column.name === 'registration')) return;
  await db.schema.createTable('applications_next')
    .addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement())
    .addColumn('owner_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', required)
    .addColumn('client_id', 'text', (col) => col.notNull().unique())
    .addColumn('secret_hash', 'text', required)
    .addColumn('redirect_uris', 'text', required)
    .addColumn('confidential', 'integer', flag(1))
    .addColumn('pkce_required', 'integer', flag(0))
    .addColumn('scopes', 'text', required)
    .addColumn('created_at', 'bigint', required)
    .addColumn('updated_at', 'bigint', required)
    .addColumn('registration', 'text', (col) => col.notNull().defaultTo('person'))
    .execute();
  const listed = sql.join(COLUMNS.map((column) => sql.ref(column)));
  await sql`insert into applications_next (${listed}) select ${listed} from applications`.execute(db);
  // AUTOINCREMENT keeps its high-water mark per table: ids of deleted applications stay unused.
  await sql`delete from sqlite_sequence where name = 'applications_next'`.execute(db);
  await sql`insert into sqlite_sequence (name, seq) select 'applications_next', seq from sqlite_sequence where name = 'applications'`.execute(db);
  await db.schema.dropTable('applications').execute();
  await db.schema.alterTable('applications_next').renameTo('applications').execute();
  // The owner index went with the old table (migration 0001).
  await db.schema.createIndex('applications_owner').on('applications').column('owner_id').execute();
  const { rows: broken } = await sql`pragma foreign_key_check`.execute(db);
  if (broken.length > 0) throw new Error(`migration 0016 would leave ${broken.length} rows referring to nothing`);
}
