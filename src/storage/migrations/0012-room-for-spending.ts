// PostgreSQL: a refresh token is updated once, when rotated, and a code once, when
// redeemed. Half of each new page is left free for that update, so the new row version
// stays on its page as a heap-only tuple and no index takes an entry for it. The
// setting applies to pages written from now on and takes no blocking lock.
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
