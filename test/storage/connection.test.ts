import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openStorage } from '../../src/storage/open.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { WAL_AUTOCHECKPOINT_PAGES, openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import { StorageUnavailableError } from '../../src/storage/errors.ts';
import { describeStorageContract, postgresServerUrl } from './contract.ts';
import { T0, auditEvent, createUser } from './fixtures.ts';
import { createTestStorage } from '../support/storage.ts';

describeStorageContract('reachability', (target) => {
  it('answers a trivial query while open', async () => {
    assert.equal(await target().storage.isReachable(), true);
  });

  it('has no setting to warn of on SQLite, and on PostgreSQL only when no table is analyzed as it grows', async () => {
    const { storage, db } = target();
    const warnings = await storage.settingWarnings();
    if (storage.kind === 'sqlite') {
      assert.deepEqual(warnings, []);
      return;
    }
    const { rows } = await sql<{ off: number }>`
      select count(*)::int4 as off from pg_settings where name in ('autovacuum', 'track_counts') and setting = 'off'`.execute(db);
    if (rows[0]!.off === 0) {
      assert.deepEqual(warnings, []);
      return;
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /off, so no table is analyzed as it grows.*ANALYZE/);
  });

  it('applies migrations again without error or data loss', async () => {
    const { storage } = target();
    const user = await createUser(storage);
    await storage.migrate();
    assert.deepEqual(await storage.users.findUserById(user.id), user);
  });
});

describe('opening storage from a database URL', () => {
  let directory: string;
  before(() => { directory = mkdtempSync(join(tmpdir(), 'folio-storage-')); });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('creates the parent directory of a SQLite file and keeps data across reopening', async () => {
    const file = join(directory, 'nested', 'data', 'folio.db');
    const first = await openStorage(file);
    assert.equal(first.kind, 'sqlite');
    await first.migrate();
    const user = await createUser(first, 'keep@example.com');
    await first.close();

    assert.ok(existsSync(file));
    const second = await openStorage(file);
    await second.migrate();
    assert.deepEqual(await second.users.findUserCredentials('keep@example.com'), { ...user, passwordHash: 'scrypt$hash' });
    await second.close();
  });

  it('runs a SQLite file in WAL mode with foreign keys and full sync', async () => {
    const database = openSqlite(join(directory, 'pragmas.db'));
    const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] as object)[0];
    assert.equal(await pragma('journal_mode'), 'wal');
    assert.equal(await pragma('foreign_keys'), 1);
    assert.equal(await pragma('synchronous'), 2);
    assert.equal(await pragma('busy_timeout'), 5000);
    await database.close();
  });

  it('gives each test storage a private, migrated in-memory database', async () => {
    const [one, two] = [await createTestStorage(), await createTestStorage()];
    await createUser(one);
    assert.equal(await two.users.hasAnyUser(), false);
    await Promise.all([one.close(), two.close()]);
  });

  it('is unreachable once closed', async () => {
    const storage = await openStorage('sqlite::memory:');
    await storage.close();
    assert.equal(await storage.isReachable(), false);
  });

  it('reports a PostgreSQL server that refuses connections as unreachable and unavailable', async () => {
    const storage = await openStorage('postgres://postgres@127.0.0.1:1/folio');
    assert.equal(storage.kind, 'postgres');
    assert.equal(await storage.isReachable(), false);
    await assert.rejects(storage.users.findUserById(1), StorageUnavailableError);
    await assert.rejects(
      storage.users.createUser({ email: 'a@example.com', name: 'A', passwordHash: 'h', now: T0 }, () => auditEvent('user.created')),
      StorageUnavailableError,
    );
    await storage.close();
  });

  it('opens PostgreSQL for postgres:// and postgresql:// URLs', { skip: !postgresServerUrl }, async () => {
    for (const url of [postgresServerUrl!, postgresServerUrl!.replace(/^postgres(ql)?:/, 'postgresql:')]) {
      const storage = await openStorage(url);
      assert.equal(storage.kind, 'postgres');
      assert.equal(await storage.isReachable(), true);
      await storage.close();
      assert.equal(await storage.isReachable(), false);
    }
  });
});

describe('PostgreSQL pool size', { skip: !postgresServerUrl }, () => {
  it('opens no more connections than FOLIO_DATABASE_POOL_SIZE allows, however many queries wait', async () => {
    for (const poolSize of [1, 3]) {
      const database = openPostgres(postgresServerUrl!, { poolSize });
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, () =>
          sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(database.db)));
        assert.equal(new Set(answers.map(({ rows }) => rows[0]!.pid)).size, poolSize);
      } finally {
        await database.close();
      }
    }
  });
});

describe('SQLite purge look-ups', () => {
  // A purge that scanned the table would block the event loop for as long as the scan.
  it('find stale sign-in failure counters through the updated_at index', async () => {
    const database = openSqlite(':memory:');
    const { db } = database;
    const storage = createStorage(database);
    try {
      await storage.migrate();
      const plan = await sql<{ detail: string }>`explain query plan select key from login_failures
        where updated_at < ${T0} and (locked_until is null or locked_until < ${T0}) limit 100`.execute(db);
      assert.match(plan.rows.map((row) => row.detail).join('\n'), /USING INDEX login_failures_updated_at/);
    } finally {
      await storage.close();
    }
  });
});

describe('SQLite connection settings', () => {
  it('keeps a 4 MiB page cache instead of better-sqlite3\'s 16 MiB', async () => {
    const database = openSqlite(':memory:');
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db);
    assert.deepEqual(rows, [{ cache_size: -4000 }]);
    await database.close();
  });

  it('checkpoints the WAL only once it holds WAL_AUTOCHECKPOINT_PAGES pages, not at SQLite\'s 1,000', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'folio-checkpoint-'));
    const database = openSqlite(join(directory, 'checkpoint.db'));
    const { db } = database;
    try {
      await sql`create table filler (page blob not null)`.execute(db);
      // A row of 3,000 bytes takes a page of its own (4,096 bytes), so a transaction
      // inserting `pages` of them writes about as many frames to the WAL.
      const fill = (pages: number) => sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${pages})
        insert into filler (page) select zeroblob(3000) from n`.execute(db);
      // A checkpoint that copied every frame back lets the next writer start the WAL
      // over: the frames it holds after one more small commit tell whether one ran.
      const framesAfterNextCommit = async () => {
        await sql`insert into filler (page) values (zeroblob(1))`.execute(db);
        const { rows } = await sql<{ log: number }>`pragma wal_checkpoint(passive)`.execute(db);
        return rows[0]!.log;
      };
      await fill(1500);
      assert.ok(await framesAfterNextCommit() > 1500, 'past 1,000 pages the WAL is kept');
      // That call's checkpoint copied everything back: the WAL starts over with the next commit.
      await fill(WAL_AUTOCHECKPOINT_PAGES + 100);
      assert.ok(await framesAfterNextCommit() < 10, `past ${WAL_AUTOCHECKPOINT_PAGES} pages the commit checkpoints`);
    } finally {
      await database.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
