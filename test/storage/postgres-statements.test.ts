// The statements Folio compiles once run as named prepared statements on
// PostgreSQL: parsed once per connection, then planned once (a generic plan).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Kysely, sql } from 'kysely';
import { issueInBatches } from '../../src/storage/kysely/token-issue-postgres.ts';
import { KyselyTokenStore } from '../../src/storage/kysely/tokens.ts';
import type { Database } from '../../src/storage/schema.ts';
import { migratedPostgresOfItsOwn, withoutPostgres } from './contract.ts';
import { accessTokenFor, createGrant } from './fixtures.ts';

interface PreparedStatementRow {
  name: string;
  statement: string;
  generic_plans: number;
}

function preparedOn(connection: Kysely<Database>): Promise<PreparedStatementRow[]> {
  return sql<PreparedStatementRow>`select name, statement, generic_plans::int4 as generic_plans from pg_prepared_statements order by name`
    .execute(connection).then((result) => result.rows);
}

describe('named statements on PostgreSQL', { skip: withoutPostgres }, () => {
  const target = migratedPostgresOfItsOwn();

  it('parses a compiled-once look-up once per connection and plans it once', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const access = accessTokenFor(grant);
    await storage.tokens.saveTokens({ access });

    await db.connection().execute(async (connection) => {
      const tokens = new KyselyTokenStore(connection, 'postgres', issueInBatches(connection));
      for (let run = 0; run < 8; run += 1) assert.deepEqual(await tokens.findAccessToken(access.tokenHash), access);
      await sql`select ${1}::int4 as one`.execute(connection);

      const prepared = await preparedOn(connection);
      const lookUp = prepared.filter((row) => row.statement.includes('from "access_tokens"'));
      assert.equal(lookUp.length, 1, JSON.stringify(prepared));
      assert.match(lookUp[0]!.name, /^folio_\d+$/);
      assert.ok(lookUp[0]!.generic_plans > 0, `a generic plan after five custom ones: ${JSON.stringify(lookUp[0])}`);
      // Ad hoc queries stay unnamed: nothing else this connection ran was kept.
      assert.ok(prepared.every((row) => row.name.startsWith('folio_')), JSON.stringify(prepared));
      assert.ok(!prepared.some((row) => row.statement.includes('as one')));

      // Another store compiles the same text to the same name: no new statement.
      assert.deepEqual(await new KyselyTokenStore(connection, 'postgres', issueInBatches(connection)).findAccessToken(access.tokenHash), access);
      assert.equal((await preparedOn(connection)).length, prepared.length);
    });
  });

  // A rolling deploy: the new release migrates while instances of the old one still serve.
  it('keeps serving prepared look-ups and issues after a migration adds a column to their table', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const access = accessTokenFor(grant);
    await storage.tokens.saveTokens({ access });

    await db.connection().execute(async (connection) => {
      const tokens = new KyselyTokenStore(connection, 'postgres', issueInBatches(connection));
      for (let run = 0; run < 8; run += 1) {
        await tokens.findAccessToken(access.tokenHash);
        assert.equal(await tokens.saveTokens({ access: accessTokenFor(grant) }), true);
      }
      await sql`alter table access_tokens add column added_later text`.execute(db);
      try {
        assert.deepEqual(await tokens.findAccessToken(access.tokenHash), access);
        const later = accessTokenFor(grant);
        assert.equal(await tokens.saveTokens({ access: later }), true);
        assert.deepEqual(await tokens.findAccessToken(later.tokenHash), later);
      } finally {
        await sql`alter table access_tokens drop column added_later`.execute(db);
      }
    });
  });
});
