// PostgreSQL: a refresh token is updated once, when it is rotated (rotated_at), and
// a code once, when it is redeemed (consumed_at). An UPDATE writes a new version
// of the row; when that version fits on the row's own page and no indexed column
// changes, it is a heap-only tuple and no index takes an entry for it. At the
// default fillfactor of 100 the page was full by then, so about three rotations
// in four wrote the new version elsewhere and an entry in each of the table's
// indexes (primary key, grant, expiry): pg_stat_user_tables counted 26% of them
// heap-only under `bench/ab.ts --postgres --scenario refresh`. Half of each new
// page is left for the one update every row is meant to get (99.5% heap-only in
// the same run; docs/performance.md, thirty-second session). Only pages written
// from now on keep the room; the setting takes no lock that reads or writes wait
// for, and rewrites nothing. SQLite updates a row in place.
import { sql, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';

const SPENT_ONCE_FILLFACTOR = 50;

export function roomForSpendingMigration(kind: StorageKind): Migration {
  return {
    async up(db) {
      if (kind !== 'postgres') return;
      for (const table of ['refresh_tokens', 'authorization_codes']) {
        await sql`alter table ${sql.table(table)} set (fillfactor = ${sql.lit(SPENT_ONCE_FILLFACTOR)})`.execute(db);
      }
    },
  };
}
