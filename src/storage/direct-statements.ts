// Kept apart from the dialects so that reading it loads no database driver
// (open.ts loads only the driver in use).
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.ts';

/** What a prepared statement runs on: the database, a transaction, or DirectStatements.executor. */
export interface StatementExecutor {
  executeQuery<Row>(query: CompiledQuery<Row>): Promise<QueryResult<Row>>;
}

/**
 * SQLite's statements run without Kysely's connection queue. better-sqlite3 runs
 * each to completion at once, yet every query through Kysely waits its turn for
 * the one connection behind a chain of promises: 3-4 µs a statement against
 * 0.6 µs run directly (docs/performance.md), on token issues that run five.
 * Running one directly is what Kysely would do but for the turn, so it is
 * right where the turn holds nothing back: while no transaction or streamed
 * read is under way (`idle`: an open transaction holds the connection, and a
 * read beside it would see what it has not committed; better-sqlite3 refuses
 * any statement while a stream is open), or inside a transaction that the
 * caller itself holds through Kysely (`executor`, the group commit's).
 */
export interface DirectStatements {
  idle(): boolean;
  run<Row>(query: CompiledQuery<Row>): QueryResult<Row>;
  readonly executor: StatementExecutor;
  /**
   * Runs `work`'s statements on `executor` in one transaction, on the connection
   * the caller holds through Kysely (`db.connection()`). With a WAL it commits
   * without SQLite's fsync, and `durable` resolves once an fsync of the WAL, on
   * the thread pool, has put the commit on disk; without one (in memory, or a
   * journal that could not become WAL) COMMIT does what it always does and
   * `durable` is already resolved. Rolled back when `work` throws.
   */
  commitSyncedApart<T>(work: (trx: StatementExecutor) => Promise<T>): Promise<{ value: T; durable: Promise<void> }>;
}

const directByDatabase = new WeakMap<Kysely<Database>, DirectStatements>();

/** The direct statements of a SQLite database opened by its dialect; undefined for any other Kysely. */
export function directStatements(db: Kysely<Database>): DirectStatements | undefined {
  return directByDatabase.get(db);
}

export function registerDirectStatements(db: Kysely<Database>, direct: DirectStatements): void {
  directByDatabase.set(db, direct);
}
