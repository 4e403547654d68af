// bench/ab.ts measures what an index costs by dropping it from one variant's own copy
// of the database (DROP_INDEXES): a misspelt name must not measure the schema
// unchanged, and no tool that serves every variant one database may drop it for all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { BenchDatabase } from '../../bench/fixtures.ts';
import { parseVariant, refuseDroppedIndexes } from '../../bench/variants.ts';
import { SQLITE_MEMORY } from '../../src/storage/dialects.ts';

describe('variants without some indexes', () => {
  it('takes the indexes a variant drops apart from its environment', () => {
    const nogrants = parseVariant('nogrants=dist:DROP_INDEXES=access_tokens_grant+refresh_tokens_grant,FOLIO_LOG_LEVEL=warn');
    assert.deepEqual(nogrants.dropIndexes, ['access_tokens_grant', 'refresh_tokens_grant']);
    assert.deepEqual(nogrants.env, { FOLIO_LOG_LEVEL: 'warn' });
  });

  it('is refused by the tools that serve every variant one database', () => {
    const variants = [parseVariant('base=dist'), parseVariant('nogrants=dist:DROP_INDEXES=access_tokens_grant')];
    assert.throws(() => refuseDroppedIndexes(variants, 'bench/start.ts'), /nogrants: DROP_INDEXES needs a database of its own/);
    assert.doesNotThrow(() => refuseDroppedIndexes(variants.slice(0, 1), 'bench/start.ts'));
  });

  it('drops the indexes named from the database, and refuses a name that is not one', async () => {
    const db = BenchDatabase.open(SQLITE_MEMORY);
    try {
      await db.storage.migrate();
      const indexNames = async () => (await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db.db)).rows.map((row) => row.name);
      assert.ok((await indexNames()).includes('access_tokens_grant'));
      await db.dropIndexes(['access_tokens_grant', 'refresh_tokens_grant']);
      const left = await indexNames();
      assert.ok(!left.includes('access_tokens_grant') && !left.includes('refresh_tokens_grant'));
      assert.ok(left.includes('access_tokens_expires'));
      await assert.rejects(db.dropIndexes(['access_tokens_grnat']), /no index access_tokens_grnat/);
    } finally {
      await db.close();
    }
  });
});
