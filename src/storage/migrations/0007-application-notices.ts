// PostgreSQL triggers that announced changes to cached tables were made here; the
// stores announce their own changes now, and migration 0013 drops the triggers
// from databases that have them. A new database needs none.
import type { Migration } from 'kysely';

export function applicationNoticesMigration(): Migration {
  return { async up() {} };
}
