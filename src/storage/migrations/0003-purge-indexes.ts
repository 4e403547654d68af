// Indexes by which the purge finds dead rows: without them each of its batches scanned
// the whole table, on SQLite blocking the event loop. Partial: live rows have NULL
// there. Migration 0011 drops the two by rotated_at and consumed_at.
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
