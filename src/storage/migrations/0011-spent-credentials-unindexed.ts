// The indexes by rotated_at and consumed_at took an entry at every refresh and code
// exchange, and nothing reads them: rotated refresh tokens and used codes stay until
// they expire, so that their reuse is still caught (RFC 9700 §4.14.2, RFC 6749
// §4.1.2), and the purge finds them by expires_at.
import type { Migration } from 'kysely';

export function spentCredentialsUnindexedMigration(): Migration {
  return {
    async up(db) {
      await db.schema.dropIndex('refresh_tokens_rotated_at').execute();
      await db.schema.dropIndex('authorization_codes_consumed_at').execute();
    },
  };
}
