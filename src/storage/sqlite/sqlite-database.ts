// The embedded database: better-sqlite3 behind Kysely, configured for how Folio uses it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import { migrateToLatest } from '../migrations/provider.ts';
import type { Database } from '../schema.ts';
import { sqliteChanges } from './changes.ts';
import { FolioSqliteDialect } from './dialect.ts';
import { durableTransactions } from './durable-transactions.ts';
import { walSync } from './wal-sync.ts';

export const SQLITE_MEMORY = ':memory:';

/**
 * Pages the WAL may hold before a commit copies them back into the database file, on
 * the event loop. Token writes change the same few pages again and again, and a
 * checkpoint copies each once, so fewer, larger ones than SQLite's default of 1,000
 * cost token requests less. The price is a WAL of up to 16 MB.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4000;

export function openSqlite(filename: string): OpenDatabase {
  if (filename !== SQLITE_MEMORY) mkdirSync(dirname(filename), { recursive: true });
  const database = new SqliteDatabase(filename);
  // WAL lets readers run beside the single writer; meaningless for an in-memory database.
  const journal = filename === SQLITE_MEMORY ? 'memory' : database.pragma('journal_mode = WAL', { simple: true });
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // FULL: in WAL mode NORMAL may lose the last commits on power loss, and a token
  // the client holds, or a revocation the user was told of, must survive it.
  database.pragma('synchronous = FULL');
  // better-sqlite3's 16 MiB page cache fills under token writes and stays resident;
  // look-ups by hash land on random pages of tables far larger than either size.
  database.pragma('cache_size = -4000');
  database.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  const db = new Kysely<Database>({ dialect: new FolioSqliteDialect(database) });
  const wal = journal === 'wal' ? walSync(filename) : undefined;
  const changes = sqliteChanges(database);
  return {
    kind: 'sqlite',
    db,
    durableTransaction: durableTransactions(db, wal),
    changes,
    migrate: () => migrateToLatest(db, 'sqlite'),
    settingWarnings: async () => [],
    async close() {
      // Kysely only destroys a driver it has initialized; touching a connection first closes an unused handle too.
      await db.connection().execute(async (connection) => sql`select 1`.execute(connection));
      await db.destroy();
      await wal?.close();
    },
  };
}
