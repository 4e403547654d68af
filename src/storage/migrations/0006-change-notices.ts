// PostgreSQL: a commit that changes a table the bearer API's cached reads come
// from (kysely/read-cache.ts) tells every listening Folio process at once, so
// that each forgets what it holds (postgres-changes.ts). Statement-level, so a
// purge batch of thousands of rows is one notice, and NOTIFY itself delivers
// only at commit, once per transaction: a rolled-back change tells nobody. New
// tokens need no notice (an absence is never cached), and token issue touches
// neither table otherwise, so issuing tokens costs no notices. A cached read of
// another table needs its own trigger here. SQLite needs none: every process
// sees every commit through PRAGMA data_version (sqlite-dialect.ts).
import { sql, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';
import { CHANGES_CHANNEL } from '../database-changes.ts';

export function changeNoticesMigration(kind: StorageKind): Migration {
  return {
    async up(db) {
      if (kind !== 'postgres') return;
      await sql`
        create function folio_notice_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, '');
          return null;
        end
        $$`.execute(db);
      // A revocation, a purge, or a cascade from a deleted grant, application or user.
      await sql`create trigger access_tokens_changed after update or delete or truncate on access_tokens
        for each statement execute function folio_notice_change()`.execute(db);
      await sql`create trigger portfolios_changed after insert or update or delete or truncate on portfolios
        for each statement execute function folio_notice_change()`.execute(db);
    },
  };
}
