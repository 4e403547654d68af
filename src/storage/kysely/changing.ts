import type { Transaction } from 'kysely';
import type { CachedKind } from '../cache/changes.ts';
import type { OpenDatabase } from '../database.ts';
import type { Database } from '../schema.ts';

/**
 * Runs `work` in a transaction that changes what the caches of `kinds` hold: the
 * other instances hear of it when it commits, and this process forgets those
 * kinds once it has ended (committed or not; forgetting too much costs a read).
 */
export async function changing<T>(
  database: OpenDatabase, kinds: readonly CachedKind[], work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    return await database.db.transaction().execute(async (trx) => {
      const result = await work(trx);
      await database.changes.announce(trx, kinds);
      return result;
    });
  } finally {
    database.changes.forget(kinds);
  }
}
