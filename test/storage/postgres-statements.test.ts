// Every statement runs as a named prepared statement on PostgreSQL
// (src/storage/postgres/postgres-database.ts): parsed once per connection, then planned once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { KyselyTokenStore } from '../../src/storage/kysely/tokens.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl, withoutPostgres } from './contract.ts';
import { accessTokenFor, createGrant } from './fixtures.ts';

interface PreparedStatementRow {
  name: string;
  statement: string;
  generic_plans: number;
}

describe('named statements on PostgreSQL', { skip: withoutPostgres }, () => {
  const temporary = new TemporaryPostgresDatabase(postgresServerUrl ?? 'postgres://unused');
  // One connection, so that what one statement prepared the next can see.
  let database: OpenDatabase;
  before(async () => {
    database = openPostgres(await temporary.create(), { poolSize: 1 });
    await database.migrate();
  });
  after(async () => {
    await database?.close();
    await temporary.drop();
  });

  const prepared = () => sql<PreparedStatementRow>`select name, statement, generic_plans::int4 as generic_plans from pg_prepared_statements order by name`
    .execute(database.db).then((result) => result.rows);

  it('parses a look-up once per connection and plans it once', async () => {
    const storage = createStorage(database);
    const { grant } = await createGrant(storage);
    const access = accessTokenFor(grant);
    await storage.tokens.saveTokens({ access });
    // The store itself, not its cache, so that every look-up goes to the database.
    const tokens = new KyselyTokenStore(database);
    for (let run = 0; run < 8; run += 1) assert.deepEqual(await tokens.findAccessToken(access.tokenHash), access);
    const lookUp = (await prepared()).filter((row) => row.statement.includes('from "access_tokens" as "a"'));
    assert.equal(lookUp.length, 1, JSON.stringify(lookUp));
    assert.match(lookUp[0]!.name, /^folio_\d+$/);
    assert.ok(lookUp[0]!.generic_plans > 0, `a generic plan after five custom ones: ${JSON.stringify(lookUp[0])}`);
    // Another store sends the same text under the same name: no new statement.
    const count = (await prepared()).length;
    assert.deepEqual(await new KyselyTokenStore(database).findAccessToken(access.tokenHash), access);
    assert.equal((await prepared()).length, count);
  });

  // A rolling deploy: the new release migrates while instances of the old one still serve.
  it('keeps serving prepared look-ups and issues after a migration adds a column to their table', async () => {
    const storage = createStorage(database);
    const { grant } = await createGrant(storage);
    const access = accessTokenFor(grant);
    const tokens = new KyselyTokenStore(database);
    await tokens.saveTokens({ access });
    for (let run = 0; run < 8; run += 1) {
      await tokens.findAccessToken(access.tokenHash);
      assert.equal(await tokens.saveTokens({ access: accessTokenFor(grant) }), true);
    }
    await sql`alter table access_tokens add column added_later text`.execute(database.db);
    try {
      assert.deepEqual(await tokens.findAccessToken(access.tokenHash), access);
      const later = accessTokenFor(grant);
      assert.equal(await tokens.saveTokens({ access: later }), true);
      assert.deepEqual(await tokens.findAccessToken(later.tokenHash), later);
    } finally {
      await sql`alter table access_tokens drop column added_later`.execute(database.db);
    }
  });
});

describe('the stores\' statements', () => {
  // A named statement that selects or returns * fails on its connection once a
  // migration adds a column, so no store may write one.
  it('name their columns rather than select or return *', () => {
    const directory = new URL('../../src/storage/', import.meta.url);
    const sources = readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const offending = sources.filter((file) => /\b(selectAll|returningAll)\(/.test(readFileSync(new URL(file, directory), 'utf8')));
    assert.deepEqual(offending, []);
  });
});
