// A migration that fails halfway, or whose process is killed halfway, must leave
// the database as it found it, recorded as not run: the next start runs it whole.
// Half-run, a migration of several statements fails again on the first statement
// that already happened (an index it drops is gone), and Folio could not start.
// Here the failure is made real: migration 0011 drops two indexes, and the second
// is taken away beforehand, so its DROP fails after the first has run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { migrateToLatest, migrateUpTo } from '../../src/storage/migrations/provider.ts';
import type { Database, StorageKind } from '../../src/storage/schema.ts';
import { forEachEmptyDatabase, migrationsRecorded } from './contract.ts';

async function indexExists(db: Kysely<Database>, kind: StorageKind, name: string): Promise<boolean> {
  const { rows } = kind === 'sqlite'
    ? await sql`select 1 from sqlite_master where type = 'index' and name = ${name}`.execute(db)
    : await sql`select 1 from pg_indexes where indexname = ${name}`.execute(db);
  return rows.length === 1;
}

function describeOn(kind: StorageKind, openDatabase: () => Promise<OpenDatabase>) {
  describe(`a migration that fails halfway (${kind})`, () => {
    it('leaves nothing of itself behind, and runs whole once what failed it is gone', async () => {
      const { db } = await openDatabase();
      try {
        await migrateUpTo(db, kind, '0010-access-tokens-by-refresh-token');
        const recordedBefore = await migrationsRecorded(db);
        await sql`drop index authorization_codes_consumed_at`.execute(db);

        await assert.rejects(migrateToLatest(db, kind), /authorization_codes_consumed_at/);
        assert.equal(await indexExists(db, kind, 'refresh_tokens_rotated_at'), true, 'the first DROP INDEX was undone');
        assert.deepEqual(await migrationsRecorded(db), recordedBefore);

        await sql`create index authorization_codes_consumed_at on authorization_codes (consumed_at) where consumed_at is not null`.execute(db);
        await migrateToLatest(db, kind);
        assert.equal(await indexExists(db, kind, 'refresh_tokens_rotated_at'), false);
        assert.equal(await indexExists(db, kind, 'authorization_codes_consumed_at'), false);
        assert.deepEqual(await migrationsRecorded(db), [...recordedBefore, '0011-spent-credentials-unindexed', '0012-room-for-spending', '0013-changes-announced-by-stores', '0014-trusted-devices-and-native-codes', '0015-token-resource', '0016-self-registered-clients']);
      } finally {
        await db.destroy();
      }
    });
  });
}

forEachEmptyDatabase(describeOn);
