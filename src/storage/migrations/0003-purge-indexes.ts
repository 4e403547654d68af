// The background purge finds dead rows by revoked_at, rotated_at and consumed_at as
// well as expires_at. Without these indexes each of its batches scanned the whole
// table, which on SQLite blocks the event loop for as long as the scan takes (a
// million live tokens: a noticeable stall every batch). Partial: live rows have
// NULL there, so the indexes hold only the few dead ones. Migration 0011 drops the
// ones by rotated_at and consumed_at, which the purge no longer reads.
import type { Migration } from 'kysely';

const DEAD_ROW_COLUMNS = [
  ['access_tokens', 'revoked_at'],
  ['refresh_tokens', 'revoked_at'],
  ['refresh_tokens', 'rotated_at'],
  ['authorization_codes', 'consumed_at'],
] as const;

export function purgeIndexesMigration(): Migration {
  return {
    async up(db) {
      for (const [table, column] of DEAD_ROW_COLUMNS) {
        await db.schema.createIndex(`${table}_${column}`).on(table).column(column)
          .where(column, 'is not', null)
          .execute();
      }
    },
  };
}
