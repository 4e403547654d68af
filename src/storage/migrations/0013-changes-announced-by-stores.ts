// PostgreSQL: the triggers of migrations 0006-0008 go, since the store methods that
// change what a cache holds announce it in their own transaction (kysely/changing.ts).
// Upgrading instances one at a time: see docs/operations.md.
import { sql, type Migration } from 'kysely';
import type { StorageKind } from '../schema.ts';

const TRIGGERS = [
  ['access_tokens_changed', 'access_tokens'], ['access_tokens_deleted', 'access_tokens'], ['portfolios_changed', 'portfolios'],
  ['applications_changed', 'applications'], ['refresh_tokens_revoked', 'refresh_tokens'], ['refresh_tokens_deleted', 'refresh_tokens'],
  ['grants_deleted', 'grants'],
] as const;
const FUNCTIONS = ['folio_notice_change', 'folio_notice_application_change', 'folio_notice_token_deletion'];

export function changesAnnouncedByStoresMigration(kind: StorageKind): Migration {
  return {
    async up(db) {
      if (kind !== 'postgres') return;
      for (const [trigger, table] of TRIGGERS) await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.table(table)}`.execute(db);
      for (const name of FUNCTIONS) await sql`drop function if exists ${sql.id(name)}()`.execute(db);
    },
  };
}
