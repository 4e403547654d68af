// Migrations 0006, 0007 and 0008 made PostgreSQL triggers that announced changes
// to the tables cached reads come from. The stores announce their own changes now
// (kysely/changing.ts) and migration 0013 drops the triggers from databases that
// have them; a new database needs none, so these run nothing. Their names stay,
// since the databases that ran them record them.
import type { Migration } from 'kysely';

export function retiredMigration(): Migration {
  return { async up() {} };
}
