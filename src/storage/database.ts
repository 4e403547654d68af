// What the stores (kysely/) need of a database, whichever it is: a Kysely instance, a
// way to commit durably, and word of changes to what the caches hold.
import type { Kysely, Transaction } from 'kysely';
import type { Changes } from './cache/changes.ts';
import type { Database, StorageKind } from './schema.ts';

export interface OpenDatabase {
  readonly kind: StorageKind;
  readonly db: Kysely<Database>;
  /** Runs `work` in a transaction and resolves once its commit is on disk (sqlite/durable-transactions.ts). */
  durableTransaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** What this process and the others changed of the cached reads. */
  readonly changes: Changes;
  /** Applies pending migrations; safe to call on every start and from several instances at once. */
  migrate(): Promise<void>;
  /** What in the database server's own settings works against Folio, one sentence each; none on SQLite. */
  settingWarnings(): Promise<string[]>;
  close(): Promise<void>;
}
