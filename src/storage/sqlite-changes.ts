// Kept apart from sqlite-dialect.ts so that reading it loads no SQLite driver
// (open.ts loads only the driver in use).
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Whether anything in the database may have changed: a number that moves with
 * every statement this connection runs that can write (better-sqlite3's
 * `readonly`, SQLite's sqlite3_stmt_readonly: BEGIN, SAVEPOINT and COMMIT are
 * read-only, INSERT ... RETURNING is not), and with every commit another
 * connection makes, another process's included (`PRAGMA data_version`, read
 * once per turn of the event loop, so such a commit counts from the next turn
 * on). It moves when a write runs, even one later rolled back: never too little.
 */
export interface SqliteChanges {
  version(): number;
}

const changesByDatabase = new WeakMap<Kysely<Database>, SqliteChanges>();

/** The change counter of a database opened by createSqliteKysely; undefined for PostgreSQL. */
export function sqliteChanges(db: Kysely<Database>): SqliteChanges | undefined {
  return changesByDatabase.get(db);
}

export function registerSqliteChanges(db: Kysely<Database>, changes: SqliteChanges): void {
  changesByDatabase.set(db, changes);
}
