// The purge forgets sign-in failure counters by updated_at. Without an index each
// purge scanned the whole table, which on SQLite blocks the event loop: with a
// million counters (a spray of guesses across many emails and addresses) 84 ms on
// every purge, and deleting them all at once 1.3 s. With it the purge deletes in
// index-found batches like the token purge (src/storage/kysely/purge.ts).
import type { Migration } from 'kysely';

export function loginFailuresAgeIndexMigration(): Migration {
  return {
    async up(db) {
      await db.schema.createIndex('login_failures_updated_at').on('login_failures').column('updated_at').execute();
    },
  };
}
