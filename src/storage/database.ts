// What the stores need of a database, whichever it is: a Kysely instance, a way to
// commit durably, and word of changes to what the caches hold. sqlite/sqlite-database.ts
// and postgres/postgres-database.ts each provide one; the stores (kysely/) are written once
// against this.
import type { Kysely, Transaction } from 'kysely';
import type { Changes } from './cache/changes.ts';
import type { Database, StorageKind } from './schema.ts';

export interface OpenDatabase {
  readonly kind: StorageKind;
  readonly db: Kysely<Database>;
  /**
   * Runs `work` in a transaction and resolves once its commit is on disk. SQLite
   * commits without the fsync on the event loop and fsyncs the WAL on the thread
   * pool instead (sqlite/durable-transactions.ts); PostgreSQL's COMMIT is durable.
   */
  durableTransaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** What this process and the others changed of the cached reads. */
  readonly changes: Changes;
  /** Applies pending migrations; safe to call on every start and from several instances at once. */
  migrate(): Promise<void>;
  /** What in the database server's own settings works against Folio, one sentence each. */
  settingWarnings(): Promise<string[]>;
  close(): Promise<void>;
}
