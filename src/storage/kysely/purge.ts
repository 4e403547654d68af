import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { changedRows } from './columns.ts';

// Deleting in bounded batches keeps each write lock short, so a large purge never
// stalls token issuance (SQLite has one writer; PostgreSQL row locks pile up).
// Each batch finds its rows through an index (migration 0003), and the purge
// yields to the event loop between batches: better-sqlite3 runs a statement on
// the main thread, so requests waiting meanwhile are served between two batches.
const PURGE_BATCH_SIZE = 1000;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface PurgeCounts {
  accessTokens: number;
  refreshTokens: number;
  codes: number;
}

async function deleteInBatches(deleteBatch: () => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = changedRows(await deleteBatch());
    total += deleted;
    if (deleted < PURGE_BATCH_SIZE) return total;
    await yieldToRequests();
  }
}

export async function purgeExpired(db: Kysely<Database>, olderThan: number): Promise<PurgeCounts> {
  const accessTokens = await deleteInBatches(() => db.deleteFrom('access_tokens')
    .where('token_hash', 'in', db.selectFrom('access_tokens').select('token_hash')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
      .limit(PURGE_BATCH_SIZE))
    .executeTakeFirst());

  // A rotated refresh token stays until it would have expired: presented again, it
  // must still be recognised as reuse and revoke its grant (RFC 9700 §4.14.2).
  const refreshTokens = await deleteInBatches(() => db.deleteFrom('refresh_tokens')
    .where('token_hash', 'in', db.selectFrom('refresh_tokens').select('token_hash')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
      .limit(PURGE_BATCH_SIZE))
    .executeTakeFirst());

  const codes = await deleteInBatches(() => db.deleteFrom('authorization_codes')
    .where('code_hash', 'in', db.selectFrom('authorization_codes').select('code_hash')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('consumed_at', '<', olderThan)]))
      .limit(PURGE_BATCH_SIZE))
    .executeTakeFirst());

  return { accessTokens, refreshTokens, codes };
}
