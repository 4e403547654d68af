// PostgreSQL: a commit that changes or deletes an application (an edit, a new
// secret, a deletion, a cascade from its owner's deletion) tells every listening
// Folio process, which forgets the client look-ups it holds (kysely/read-cache.ts).
// Its own payload keeps these apart from migration 0006's notices, so a token
// revoked elsewhere does not cost every instance its client look-ups. A new
// application needs no notice: an absence is never cached.
import { sql, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';
import { APPLICATIONS_CHANGED, CHANGES_CHANNEL } from '../database-changes.ts';

export function applicationNoticesMigration(kind: StorageKind): Migration {
  return {
    async up(db) {
      if (kind !== 'postgres') return;
      await sql`
        create function folio_notice_application_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, ${sql.lit(APPLICATIONS_CHANGED)});
          return null;
        end
        $$`.execute(db);
      await sql`create trigger applications_changed after update or delete or truncate on applications
        for each statement execute function folio_notice_application_change()`.execute(db);
    },
  };
}
