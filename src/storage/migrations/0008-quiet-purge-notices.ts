// PostgreSQL: the background purge's deletions of access tokens announce no
// change. It deletes only tokens revoked, or expired an hour ago, which a bearer
// look-up answers 401 whether they are there or not, yet each of its batches made
// every instance forget its bearer look-ups (the GET during a purge fell to
// 0.68-0.84x of itself; docs/performance.md). The purge's statement says so by
// setting DELETING_DEAD_ROWS_SETTING for its own transaction as it picks each row
// (kysely/purge.ts); any other deletion that takes a row (a cascade from a
// deleted grant, application or user) announces itself as before. Updates and
// truncation notify as in migration 0006.
import { sql, type Migration } from 'kysely';
import { CHANGES_CHANNEL } from '../database-changes.ts';
import type { StorageKind } from '../schema.ts';
import { DELETING_DEAD_ROWS_SETTING } from '../written-tables.ts';

export function quietPurgeNoticesMigration(kind: StorageKind): Migration {
  return {
    async up(db) {
      if (kind !== 'postgres') return;
      await sql`
        create function folio_notice_token_deletion() returns trigger language plpgsql as $$
        begin
          if exists (select 1 from deleted_tokens)
            and current_setting(${sql.lit(DELETING_DEAD_ROWS_SETTING)}, true) is distinct from 'on' then
            perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, '');
          end if;
          return null;
        end
        $$`.execute(db);
      await sql`drop trigger access_tokens_changed on access_tokens`.execute(db);
      await sql`create trigger access_tokens_changed after update or truncate on access_tokens
        for each statement execute function folio_notice_change()`.execute(db);
      await sql`create trigger access_tokens_deleted after delete on access_tokens
        referencing old table as deleted_tokens
        for each statement execute function folio_notice_token_deletion()`.execute(db);
    },
  };
}
