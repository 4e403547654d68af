// SQLite group commit (src/storage/kysely/transactions.ts): writes arriving together
// share one transaction, yet each stands or falls alone.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { createSqliteKysely, SQLITE_MEMORY } from '../../src/storage/dialects.ts';
import type { StatementExecutor } from '../../src/storage/direct-statements.ts';
import { migrateToLatest } from '../../src/storage/migrations/provider.ts';
import type { Database } from '../../src/storage/schema.ts';
import { groupCommit } from '../../src/storage/kysely/transactions.ts';

/** A write for the group commit: one user, answered with its email. */
function addingUser(db: Kysely<Database>, email: string, name = email) {
  return async (trx: StatementExecutor) => {
    await trx.executeQuery(db.insertInto('users').values({ email, name, password_hash: 'x', created_at: 1, updated_at: 1 }).compile());
    return email;
  };
}

describe('group commit on SQLite', () => {
  let db: Kysely<Database>;
  beforeEach(async () => {
    db = createSqliteKysely(SQLITE_MEMORY);
    await migrateToLatest(db, 'sqlite');
  });
  afterEach(async () => { await db.destroy(); });

  const addUser = (email: string) => addingUser(db, email);
  const emails = async () => (await db.selectFrom('users').select('email').orderBy('email').execute()).map((row) => row.email);

  it('commits every write of a batch and answers each caller with its own result', async () => {
    const inTransaction = groupCommit(db);
    const results = await Promise.all(['a', 'b', 'c'].map((name) => inTransaction(addUser(`${name}@example.test`))));
    assert.deepEqual(results, ['a@example.test', 'b@example.test', 'c@example.test']);
    assert.deepEqual(await emails(), results);
  });

  it('rolls back only the write that failed, keeping the others of its batch', async () => {
    const inTransaction = groupCommit(db);
    const outcomes = await Promise.allSettled([
      inTransaction(addUser('first@example.test')),
      inTransaction(async (trx) => {
        await addUser('half-written@example.test')(trx);
        throw new Error('changed my mind');
      }),
      inTransaction(addUser('first@example.test')), // unique violation
      inTransaction(addUser('last@example.test')),
    ]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    assert.deepEqual(await emails(), ['first@example.test', 'last@example.test']);
  });

  it('runs each write once when none throws, and the whole batch again after a rollback when one does', async () => {
    const inTransaction = groupCommit(db);
    const runs = new Map<string, number>();
    const counted = (email: string, fails = false) => async (trx: StatementExecutor) => {
      runs.set(email, (runs.get(email) ?? 0) + 1);
      await addUser(email)(trx);
      if (fails) throw new Error('changed my mind');
      return email;
    };
    await Promise.all([inTransaction(counted('a@example.test')), inTransaction(counted('b@example.test'))]);
    assert.deepEqual([...runs.values()], [1, 1]);

    runs.clear();
    const outcomes = await Promise.allSettled([
      inTransaction(counted('c@example.test')),
      inTransaction(counted('d@example.test', true)),
      inTransaction(counted('e@example.test')),
    ]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
    // The first run stopped at the write that threw; the second ran every write, each in a savepoint.
    assert.deepEqual(Object.fromEntries(runs), { 'c@example.test': 2, 'd@example.test': 2, 'e@example.test': 1 });
    assert.deepEqual(await emails(), ['a@example.test', 'b@example.test', 'c@example.test', 'e@example.test']);
  });

  it('answers a lone write that throws with its own error, having written nothing', async () => {
    const inTransaction = groupCommit(db);
    let runs = 0;
    await assert.rejects(inTransaction(async (trx) => {
      runs += 1;
      await addUser('alone@example.test')(trx);
      throw new Error('changed my mind');
    }), /changed my mind/);
    assert.equal(runs, 1);
    assert.deepEqual(await emails(), []);
  });

  it('handles more writes than one batch holds', async () => {
    const inTransaction = groupCommit(db);
    await Promise.all(Array.from({ length: 600 }, (_, index) => inTransaction(addUser(`user${index}@example.test`))));
    assert.equal((await emails()).length, 600);
  });
});

describe('group commit on a SQLite file', () => {
  let directory: string;
  let filename: string;
  let db: Kysely<Database>;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'folio-group-commit-'));
    filename = join(directory, 'folio.db');
    db = createSqliteKysely(filename);
    await migrateToLatest(db, 'sqlite');
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  const addUser = (email: string) => addingUser(db, email);
  const userCount = async () => (await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
  const synchronous = async () => (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous;
  const FULL = 2;

  /** Records each fsync of a file Node makes meanwhile (the WAL's, sqlite-dialect.ts), around the real one. */
  async function watchingFsyncs(during: (events: string[]) => Promise<void>) {
    const probe = await open(filename, 'r');
    const handles = Object.getPrototypeOf(probe) as { sync(this: unknown): Promise<void> };
    await probe.close();
    const realSync = handles.sync;
    const events: string[] = [];
    handles.sync = async function (this: unknown) {
      events.push('fsync begun');
      // The connection is free while the commit is synced: a read need not wait for the disk.
      events.push(`read ${await userCount()} users`);
      await realSync.call(this);
      events.push('fsync ended');
    };
    try {
      await during(events);
    } finally {
      handles.sync = realSync;
    }
  }

  it('answers a write only after the WAL holding its commit has been fsynced, apart from the connection', async () => {
    const inTransaction = groupCommit(db);
    await watchingFsyncs(async (events) => {
      const write = (name: string) => inTransaction(addUser(`${name}@example.test`)).then(() => events.push(`answered ${name}`));
      await Promise.all([write('a'), write('b')]);
      const synced = ['fsync begun', 'read 2 users', 'fsync ended'];
      // The first sync fsyncs the directory too, once, for the WAL's name; the two writes share one commit and its fsync.
      assert.deepEqual(events, [...synced, ...synced, 'answered a', 'answered b']);
      events.length = 0;
      await write('c');
      assert.deepEqual(events, ['fsync begun', 'read 3 users', 'fsync ended', 'answered c']);
    });
    assert.equal(await synchronous(), FULL, 'every other write still fsyncs in its commit');
    await db.destroy();
    db = createSqliteKysely(filename);
    assert.equal(await userCount(), 3);
  });

  it('keeps syncing the same WAL file after checkpoints start it over', async () => {
    const inTransaction = groupCommit(db);
    // Checkpoints at SQLite's default rather than the server's WAL_AUTOCHECKPOINT_PAGES,
    // so that a few megabytes of writes bring several.
    await sql`pragma wal_autocheckpoint = 1000`.execute(db);
    const padding = 'x'.repeat(2000);
    const writeMany = (from: number) => Promise.all(Array.from({ length: 500 }, (_, index) => inTransaction(addingUser(db, `u${from + index}@example.test`, padding))));
    await writeMany(0);
    const wal = statSync(`${filename}-wal`);
    // 1,000 pages is about 4 MB: these writes pass it more than once.
    for (let from = 500; from < 4000; from += 500) await writeMany(from);
    const after = statSync(`${filename}-wal`);
    assert.equal(after.ino, wal.ino, 'the WAL is restarted in place, not replaced');
    assert.ok(after.size < 4000 * padding.length, 'checkpoints ran, so the WAL was written over from its start');
    await db.destroy();
    db = createSqliteKysely(filename);
    assert.equal(await userCount(), 4000);
  });

  it('fails every write of a batch whose fsync fails, without running any of them again', async () => {
    const inTransaction = groupCommit(db);
    await inTransaction(addUser('before@example.test')); // the WAL's first sync, which fsyncs its directory too
    const probe = await open(filename, 'r');
    const handles = Object.getPrototypeOf(probe) as { sync(this: unknown): Promise<void> };
    await probe.close();
    const realSync = handles.sync;
    handles.sync = async () => { throw new Error('EIO: the disk refused'); };
    const runs = new Map<string, number>();
    const counted = (email: string) => async (trx: StatementExecutor) => {
      runs.set(email, (runs.get(email) ?? 0) + 1);
      return addUser(email)(trx);
    };
    try {
      const outcomes = await Promise.allSettled([inTransaction(counted('a@example.test')), inTransaction(counted('b@example.test'))]);
      assert.deepEqual(outcomes.map((outcome) => outcome.status === 'rejected' && String(outcome.reason)), ['Error: EIO: the disk refused', 'Error: EIO: the disk refused']);
    } finally {
      handles.sync = realSync;
    }
    // Committed once, whatever the disk did with it: run again, they would have been written twice or refused as duplicates.
    assert.deepEqual([...runs], [['a@example.test', 1], ['b@example.test', 1]]);
    assert.equal(await synchronous(), FULL);
    assert.equal(await inTransaction(addUser('after@example.test')), 'after@example.test', 'the next batch syncs again');
  });

  it('leaves nothing written, no fsync asked and FULL restored when the write throws', async () => {
    const inTransaction = groupCommit(db);
    await watchingFsyncs(async (events) => {
      await assert.rejects(inTransaction(async (trx) => {
        await addUser('half-written@example.test')(trx);
        throw new Error('changed my mind');
      }), /changed my mind/);
      assert.deepEqual(events, []);
    });
    assert.equal(await synchronous(), FULL);
    assert.equal(await userCount(), 0);
  });
});
