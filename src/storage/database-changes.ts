// Kept apart from the dialects so that reading it loads no database driver
// (open.ts loads only the driver in use).
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Whether anything the bearer API's cached reads hold may have changed
 * (kysely/read-cache.ts): a number that moves with every write, this process's
 * or another's, that could outdate one of them. Never too little: it may move
 * for a write that changed nothing. Each dialect says how it learns of writes:
 * - SQLite (sqlite-dialect.ts): before every statement this connection runs
 *   that can write (better-sqlite3's `readonly`, SQLite's sqlite3_stmt_readonly:
 *   BEGIN, SAVEPOINT and COMMIT are read-only, INSERT ... RETURNING is not), and
 *   with every commit another connection makes, another process's included
 *   (`PRAGMA data_version`, read once per turn of the event loop, so such a
 *   commit counts from the next turn on);
 * - PostgreSQL (postgres-changes.ts): before and after every statement this
 *   process sends that is not a SELECT, and with every notice that another
 *   connection's commit changed a table a cached read comes from (LISTEN/NOTIFY).
 */
export interface DatabaseChanges {
  version(): number;
  /**
   * The same for the client look-ups kept in memory: moves only with writes that
   * can change an application row (written-tables.ts), this process's, and
   * another's as far as it can tell (SQLite: any commit; PostgreSQL: a notice
   * whose payload is APPLICATIONS_CHANGED), so token issue, which writes every
   * request, leaves them be.
   */
  applicationsVersion(): number;
  /**
   * Whether the numbers above can be relied on now: always on SQLite; on
   * PostgreSQL while the connection that hears other instances' commits is proven
   * (postgres-changes.ts). While not, both move on every call, so every cached
   * read goes to the database.
   */
  trusted(): boolean;
}

const changesByDatabase = new WeakMap<Kysely<Database>, DatabaseChanges>();

/** The change counter of a database opened by one of the dialects; undefined for any other Kysely. */
export function databaseChanges(db: Kysely<Database>): DatabaseChanges | undefined {
  return changesByDatabase.get(db);
}

export function registerDatabaseChanges(db: Kysely<Database>, changes: DatabaseChanges): void {
  changesByDatabase.set(db, changes);
}

/** The PostgreSQL NOTIFY channel on which such commits are announced (migrations 0006 and 0007). */
export const CHANGES_CHANNEL = 'folio_changes';
/** The payload of a notice that announces a change to applications; the others send ''. */
export const APPLICATIONS_CHANGED = 'applications';
