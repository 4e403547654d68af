import { CompiledQuery, type DeleteQueryBuilder, type DeleteResult, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { DELETES_DEAD_ROWS_ONLY, DELETING_DEAD_ROWS_SETTING } from '../written-tables.ts';
import type { Pause } from '../../platform/pacer.ts';
import type { Database, StorageKind } from '../schema.ts';
import { changedRows } from './columns.ts';

// Deleting in bounded batches keeps each write lock short, so a large purge never
// stalls token issuance (SQLite has one writer; PostgreSQL row locks pile up).
// Each batch finds its rows through an index (migration 0003), and the caller's
// pause runs between batches. On SQLite, 100 rows: better-sqlite3 runs a statement
// on the main thread and a request arriving meanwhile waits for it (with 300,000
// dead tokens a batch of 1,000 took 16-47 ms, one of 100 2-5 ms). On PostgreSQL
// a batch runs in the database server while requests go on, and one of 1,000 cost
// the server a quarter of the CPU a row that one of 100 did (1.5 against 6 µs):
// what a batch costs besides its rows (round trip, plan, trigger, commit) is shared.
const PURGE_BATCH_SIZE: Record<StorageKind, number> = { sqlite: 100, postgres: 1000 };

export const yieldToRequests: Pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface PurgeCounts {
  accessTokens: number;
  refreshTokens: number;
  codes: number;
}

/** Runs `deleteBatch` (which deletes at most `limit` rows) until a batch comes up short, pausing between batches. */
export async function deleteInBatches(kind: StorageKind, betweenBatches: Pause, deleteBatch: (limit: number) => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  const limit = PURGE_BATCH_SIZE[kind];
  let total = 0;
  for (;;) {
    const deleted = changedRows(await deleteBatch(limit));
    total += deleted;
    if (deleted < limit) return total;
    await betweenBatches();
  }
}

/**
 * What restricts a purge's DELETE to the batch of rows `batch` picks.
 *
 * On PostgreSQL a batch takes only dead rows no transaction holds, and skips the
 * rest until the next purge. Waiting for them could deadlock: revoking a grant
 * locks its tokens, expired ones included, in an order of its own, and the
 * purge's batch may hold some of them already. The DELETE then finds the rows it
 * locked by their addresses (a Tid Scan), which cannot change while it holds
 * them; matched by key, the planner joined a batch of 300 or more against a scan
 * of the whole table, 11 ms a batch among 60,000 rows. SQLite has one writer and
 * no row locks, and looks each key up in its primary-key index.
 */
export function pickedRows<Table extends keyof Database>(
  kind: StorageKind, key: string & keyof Database[Table], batch: SelectQueryBuilder<Database, Table, object>,
): RawBuilder<SqlBool> {
  return kind === 'postgres'
    // A query builder placed in sql`` brings its own parentheses.
    ? sql<SqlBool>`ctid = any(array${batch.select(sql`ctid`.as('ctid')).forUpdate().skipLocked()})`
    : sql<SqlBool>`${sql.ref(key)} in ${batch.select(sql.ref(key).as('key'))}`;
}

/**
 * Runs a purge's DELETE marked as one of dead rows only, so that it empties no
 * cached read (written-tables.ts): each batch used to make every instance read
 * its bearer look-ups afresh, and on PostgreSQL the GET during a purge fell to
 * 0.68-0.84x of itself (docs/performance.md). Also for the sign-in counters'
 * purge (login-failures.ts): no cached read holds a counter.
 */
export async function deleteDeadRows<Table extends keyof Database>(
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
  const accessTokens = await deleteInBatches(kind, betweenBatches, (limit) => deleteDeadRows(db, kind, db.deleteFrom('access_tokens')
    .where(pickedRows(kind, 'token_hash', db.selectFrom('access_tokens')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
      .limit(limit)))));

  // A rotated refresh token stays until it would have expired: presented again, it
  // must still be recognised as reuse and revoke its grant (RFC 9700 §4.14.2).
  const refreshTokens = await deleteInBatches(kind, betweenBatches, (limit) => deleteDeadRows(db, kind, db.deleteFrom('refresh_tokens')
    .where(pickedRows(kind, 'token_hash', db.selectFrom('refresh_tokens')
      .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
      .limit(limit)))));

  // A consumed code likewise stays until it expires: presented again, it must still
  // be recognised as a replay and revoke what it issued (RFC 6749 §4.1.2).
  const codes = await deleteInBatches(kind, betweenBatches, (limit) => deleteDeadRows(db, kind, db.deleteFrom('authorization_codes')
    .where(pickedRows(kind, 'code_hash', db.selectFrom('authorization_codes')
      .where('expires_at', '<', olderThan)
      .limit(limit)))));

  return { accessTokens, refreshTokens, codes };
}
