// The indexes by rotated_at and consumed_at (migration 0003) took an entry at
// every refresh and every code exchange, and nothing reads them. The purge keeps
// a rotated refresh token until it would have expired, so that its reuse is still
// caught (RFC 9700 §4.14.2), and since this migration a consumed code the same way,
// so that its replay is (RFC 6749 §4.1.2): both leave by their expiry, found
// through the indexes by expires_at. An index a commit writes is a page more in
// the WAL at every commit of the token endpoints (docs/performance.md).
import type { Migration } from 'kysely';

export function spentCredentialsUnindexedMigration(): Migration {
  return {
    async up(db) {
      await db.schema.dropIndex('refresh_tokens_rotated_at').execute();
      await db.schema.dropIndex('authorization_codes_consumed_at').execute();
    },
  };
}
