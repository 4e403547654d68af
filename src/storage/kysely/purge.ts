// Dead credentials are deleted in bounded batches, each found through an index
// (migration 0003) with the caller's pause between them, so that no write lock is held
// long enough to stall token issue. Only rows no look-up can answer as live are
// deleted, so the purge invalidates no cache.
import { type DeleteQueryBuilder, type DeleteResult, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Pause } from '../../platform/pacer.ts';
import type { OpenDatabase } from '../database.ts';
import type { Database, StorageKind } from '../schema.ts';
import type { TokenStore } from '../stores.ts';
import { changedRows } from './columns.ts';

/** SQLite runs a batch on the event loop, so small ones; PostgreSQL shares a batch's round trip among more rows. */
const PURGE_BATCH_SIZE: Record<StorageKind, number> = { sqlite: 100, postgres: 1000 };

export const yieldToRequests: Pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export type PurgeCounts = Awaited<ReturnType<TokenStore['purgeExpired']>>;

/**
 * Deletes the rows `batch` picks (at most `limit` each time) until a batch comes up short.
 * On PostgreSQL a batch skips rows a transaction holds (waiting could deadlock with a
 * revocation) and deletes them by address, a Tid Scan: by key, large batches scanned the table.
 */
export async function deleteInBatches<Table extends keyof Database>(
  { db, kind }: OpenDatabase, betweenBatches: Pause, table: Table, key: string & keyof Database[Table],
  batch: (limit: number) => SelectQueryBuilder<Database, Table, object>,
): Promise<number> {
  const limit = PURGE_BATCH_SIZE[kind];
  const picked = (query: SelectQueryBuilder<Database, Table, object>): RawBuilder<SqlBool> => (kind === 'postgres'
    ? sql<SqlBool>`ctid = any(array${query.select(sql`ctid`.as('ctid')).forUpdate().skipLocked()})`
    : sql<SqlBool>`${sql.ref(key)} in ${query.select(sql.ref(key).as('key'))}`);
  let total = 0;
  for (;;) {
    const deletion = db.deleteFrom(table as keyof Database).where(picked(batch(limit))) as unknown as DeleteQueryBuilder<Database, Table, DeleteResult>;
    const deleted = changedRows(await deletion.executeTakeFirst());
    total += deleted;
    if (deleted < limit) return total;
    await betweenBatches();
  }
}

export async function purgeExpired(database: OpenDatabase, olderThan: number, betweenBatches: Pause): Promise<PurgeCounts> {
  const { db } = database;
  const accessTokens = await deleteInBatches(database, betweenBatches, 'access_tokens', 'token_hash', (limit) => db.selectFrom('access_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
    .limit(limit));
  // A rotated refresh token stays until it would have expired: presented again, it
  // must still be recognised as reuse and revoke its grant (RFC 9700 §4.14.2).
  const refreshTokens = await deleteInBatches(database, betweenBatches, 'refresh_tokens', 'token_hash', (limit) => db.selectFrom('refresh_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', olderThan), eb('revoked_at', '<', olderThan)]))
    .limit(limit));
  // A consumed code likewise stays until it expires: presented again, it must still
  // be recognised as a replay and revoke what it issued (RFC 6749 §4.1.2).
  const codes = await deleteInBatches(database, betweenBatches, 'authorization_codes', 'code_hash', (limit) => db.selectFrom('authorization_codes')
    .where('expires_at', '<', olderThan)
    .limit(limit));
  return { accessTokens, refreshTokens, codes };
}
