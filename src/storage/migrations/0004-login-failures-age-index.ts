// The purge forgets sign-in failure counters by updated_at, in index-found batches like
// the token purge's (kysely/purge.ts): a scan of the whole table, which a spray of
// guesses can fill, would block SQLite's event loop.
import type { Migration } from 'kysely';

export function loginFailuresAgeIndexMigration(): Migration {
  return {
    async up(db) {
      await db.schema.createIndex('login_failures_updated_at').on('login_failures').column('updated_at').execute();
    },
  };
}
