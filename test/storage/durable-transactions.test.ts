// SQLite's durable transactions (src/storage/sqlite/durable-transactions.ts): the
// commit is fsynced on the thread pool, apart from the connection, before the
// caller hears back.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { StorageUnavailableError } from '../../src/storage/errors.ts';
import type { Database } from '../../src/storage/schema.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';

const FULL = 2;

describe('durable transactions on a SQLite file', () => {
  let directory: string;
  let filename: string;
  let database: OpenDatabase;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'folio-durable-'));
    filename = join(directory, 'folio.db');
    database = openSqlite(filename);
    await database.migrate();
  });
  afterEach(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const addUser = (email: string, name = email) => (trx: Kysely<Database>) =>
    trx.insertInto('users').values({ email, name, password_hash: 'x', created_at: 1, updated_at: 1 }).execute().then(() => email);
  const userCount = async () => Number((await database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const synchronous = async () => (await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db)).rows[0]!.synchronous;

  /** Replaces the fsync of every file handle Node opens meanwhile (the WAL's), around the real one. */
  async function replacingFsync(replacement: (real: () => Promise<void>) => Promise<void>, during: () => Promise<void>) {
    const probe = await open(filename, 'r');
    const handles = Object.getPrototypeOf(probe) as { sync(this: unknown): Promise<void> };
    await probe.close();
    const realSync = handles.sync;
    handles.sync = function (this: unknown) { return replacement(() => realSync.call(this)); };
    try {
      await during();
    } finally {
      handles.sync = realSync;
    }
  }

  it('answers only after the WAL holding its commit has been fsynced, with the connection free meanwhile', async () => {
    const events: string[] = [];
    await replacingFsync(async (real) => {
      events.push('fsync begun');
      events.push(`read ${await userCount()} users`);
      await real();
      events.push('fsync ended');
    }, async () => {
      await database.durableTransaction(addUser('a@example.test'));
      events.push('answered a');
    });
    // The first sync fsyncs the directory too, once, for the WAL's name.
    const synced = ['fsync begun', 'read 1 users', 'fsync ended'];
    assert.deepEqual(events, [...synced, ...synced, 'answered a']);
    assert.equal(await synchronous(), FULL, 'every other write still fsyncs in its commit');
    await database.close();
    database = openSqlite(filename);
    assert.equal(await userCount(), 1);
  });

  it('keeps syncing the same WAL file after checkpoints start it over', async () => {
    // Checkpoints at SQLite's default rather than the server's, so a few megabytes of writes bring several.
    await sql`pragma wal_autocheckpoint = 1000`.execute(database.db);
    const padding = 'x'.repeat(2000);
    const writeMany = (from: number) => database.durableTransaction(async (trx) => {
      for (let index = 0; index < 500; index++) await addUser(`u${from + index}@example.test`, padding)(trx);
    });
    await writeMany(0);
    const wal = statSync(`${filename}-wal`);
    for (let from = 500; from < 4000; from += 500) await writeMany(from);
    const after = statSync(`${filename}-wal`);
    assert.equal(after.ino, wal.ino, 'the WAL is restarted in place, not replaced');
    assert.ok(after.size < 4000 * padding.length, 'checkpoints ran, so the WAL was written over from its start');
    assert.equal(await userCount(), 4000);
  });

  it('fails as an outage when the fsync fails, keeping FULL for the next', async () => {
    await database.durableTransaction(addUser('before@example.test'));
    await replacingFsync(async () => { throw new Error('EIO: the disk refused'); }, async () => {
      await assert.rejects(database.durableTransaction(addUser('a@example.test')), StorageUnavailableError);
    });
    assert.equal(await synchronous(), FULL);
    assert.equal(await database.durableTransaction(addUser('after@example.test')), 'after@example.test');
  });

  it('leaves nothing written, no fsync asked and FULL restored when the work throws', async () => {
    const events: string[] = [];
    await replacingFsync(async (real) => { events.push('fsync'); await real(); }, async () => {
      await assert.rejects(database.durableTransaction(async (trx) => {
        await addUser('half-written@example.test')(trx);
        throw new Error('changed my mind');
      }), /changed my mind/);
    });
    assert.deepEqual(events, []);
    assert.equal(await synchronous(), FULL);
    assert.equal(await userCount(), 0);
  });
});
