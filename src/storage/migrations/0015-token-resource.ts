// RFC 8707: each code and token keeps the resource it was issued for, its
// audience, so a token for the MCP server is refused by the portfolio API and the
// other way round, and a refresh cannot move a grant to another resource. Codes and
// tokens from before, and those issued without `resource`, keep null.
import type { Migration } from 'kysely';

export function tokenResourceMigration(): Migration {
  return {
    async up(db) {
      for (const table of ['authorization_codes', 'access_tokens', 'refresh_tokens']) {
        await db.schema.alterTable(table).addColumn('resource', 'text').execute();
      }
    },
  };
}
