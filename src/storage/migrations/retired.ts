// Migrations 0006-0008 made PostgreSQL triggers that migration 0013 drops; a new
// database needs none, so they run nothing. Their names stay: databases record them.
import type { Migration } from 'kysely';

export function retiredMigration(): Migration {
  return { async up() {} };
}
