// Each token remembers the authorization code it descends from, through any number of
// refreshes, so that a code replay, a refresh token's reuse or its revocation (RFC 6749
// §4.1.2, RFC 9700 §4.14.2, RFC 7009 §2.1) revokes that one authorization's tokens,
// not every device's. Older tokens keep null: for them the whole grant is revoked.
import type { Migration } from 'kysely';

export function tokenOriginCodeMigration(): Migration {
  return {
    async up(db) {
      for (const table of ['access_tokens', 'refresh_tokens']) {
        await db.schema.alterTable(table).addColumn('origin_code_hash', 'text').execute();
      }
    },
  };
}
