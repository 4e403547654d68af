// Transactions made durable off the event loop: under synchronous=FULL SQLite fsyncs the WAL
// inside COMMIT, on the event loop; these commit under NORMAL and the same fsync, all that FULL
// adds in WAL mode, runs on libuv's thread pool before the caller hears back.
import { type Kysely, sql, type Transaction } from 'kysely';
import { StorageUnavailableError } from '../errors.ts';
import type { Database } from '../schema.ts';
import type { WalSync } from './wal-sync.ts';

export function durableTransactions(db: Kysely<Database>, wal: WalSync | undefined) {
  return async <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> => {
    // In memory, or where the journal could not become WAL, COMMIT keeps its own fsync.
    if (wal === undefined) return db.transaction().execute(work);
    // The setting can change only outside a transaction; holding the one connection,
    // nothing else runs between NORMAL and FULL.
    const value = await db.connection().execute(async (connection) => {
      await sql`pragma synchronous = NORMAL`.execute(connection);
      try {
        return await connection.transaction().execute(work);
      } finally {
        await sql`pragma synchronous = FULL`.execute(connection);
      }
    });
    // Awaited after the connection is given back, so reads need not wait for the disk.
    // A failed fsync fails the caller as an outage: the commit happened, so the
    // work must not run again, as it would after a rollback (platform/batches.ts).
    await wal.sync().catch((error: unknown) => { throw new StorageUnavailableError(error); });
    return value;
  };
}
