import { CompiledQuery, type DeleteQueryBuilder, type DeleteResult, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { DELETES_DEAD_ROWS_ONLY, DELETING_DEAD_ROWS_SETTING } from '../written-tables.ts';
import type { Pause } from '../../platform/pacer.ts';
import type { Database, StorageKind } from '../schema.ts';
import { changedRows } from './columns.ts';

// Deleting in bounded batches keeps each write lock short, so a large purge never
// stalls token issuance (SQLite has one writer; PostgreSQL row locks pile up).
// Each batch finds its rows through an index (migration 0003), and the caller's
// pause runs between batches: better-sqlite3 runs a statement on the main thread,
// so requests waiting meanwhile are served between two batches. 100 rows, because
// a batch's time grows with its rows and a request arriving during it waits: with
// 300,000 dead tokens on SQLite a batch of 1,000 took 16–47 ms, one of 100 2–5 ms.
const PURGE_BATCH_SIZE = 100;

export const yieldToRequests: Pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface PurgeCounts {
  accessTokens: number;
  refreshTokens: number;
  codes: number;
}

/** Runs `deleteBatch` (which deletes at most `limit` rows) until a batch comes up short, pausing between batches. */
export async function deleteInBatches(betweenBatches: Pause, deleteBatch: (limit: number) => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = changedRows(await deleteBatch(PURGE_BATCH_SIZE));
    total += deleted;
    if (deleted < PURGE_BATCH_SIZE) return total;
    await betweenBatches();
  }
}

/**
 * On PostgreSQL a batch takes only dead rows no transaction holds, and skips the
 * rest until the next purge. Waiting for them could deadlock: revoking a grant
 * locks its tokens, expired ones included, in an order of its own, and the
 * purge's batch may hold some of them already. SQLite has one writer and no row locks.
 */
export function rowsNotInUse(kind: StorageKind) {
  return <Table extends keyof Database, Row>(batch: SelectQueryBuilder<Database, Table, Row>) =>
    (kind === 'postgres' ? batch.forUpdate().skipLocked() : batch);
}

/**
 * Runs a purge's DELETE marked as one of dead rows only, so that it empties no
 * cached read (written-tables.ts): each batch used to make every instance read
 * its bearer look-ups afresh, and on PostgreSQL the GET during a purge fell to
 * 0.68-0.84x of itself (README, Performance).
 */
async function deleteDeadRows<Table extends keyof Database>(
  db: Kysely<Database>, kind: StorageKind, query: DeleteQueryBuilder<Database, Table, DeleteResult>,
): Promise<{ numDeletedRows: bigint }> {
  // PostgreSQL: other instances hear of deletions through a trigger, told by this
  // setting that these need no notice. Part of the condition, so every deleted row set it.
  const told = kind === 'postgres'
    ? query.where(sql<boolean>`set_config(${DELETING_DEAD_ROWS_SETTING}, 'on', true) = 'on'`)
    : query;
  const { sql: text, parameters } = told.compile();
  const result = await db.executeQuery(CompiledQuery.raw(`${text}${DELETES_DEAD_ROWS_ONLY}`, [...parameters]));
  return { numDeletedRows: result.numAffectedRows ?? 0n };
}

export async function purgeExpired(db: Kysely<Database>, kind: StorageKind, olderThan: number, betweenBatches: Pause): Promise<PurgeCounts> {
  const notInUse = rowsNotInUse(kind);
  const accessTokens = await deleteInBatches(betweenBatches, (limit) => deleteDeadRows(db, kind, db.deleteFrom('access_tokens')
    .where('token_hash', 'in', notInUse(db.selectFrom('access_tokens').select('token_hash')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
      .limit(limit)))));

  // A rotated refresh token stays until it would have expired: presented again, it
  // must still be recognised as reuse and revoke its grant (RFC 9700 §4.14.2).
  const refreshTokens = await deleteInBatches(betweenBatches, (limit) => deleteDeadRows(db, kind, db.deleteFrom('refresh_tokens')
    .where('token_hash', 'in', notInUse(db.selectFrom('refresh_tokens').select('token_hash')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
      .limit(limit)))));

  const codes = await deleteInBatches(betweenBatches, (limit) => deleteDeadRows(db, kind, db.deleteFrom('authorization_codes')
    .where('code_hash', 'in', notInUse(db.selectFrom('authorization_codes').select('code_hash')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('consumed_at', '<', olderThan)]))
      .limit(limit)))));

  return { accessTokens, refreshTokens, codes };
}
