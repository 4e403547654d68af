// bench/ab.ts prints what a request wrote: on SQLite the bytes the server's process
// wrote to storage, on PostgreSQL the WAL. Both must follow real writes, and only those.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { BenchDatabase } from '../../bench/fixtures.ts';
import { storageWrittenBytes } from '../../bench/processes.ts';
import { makeWorkDirectory } from '../../bench/work-directory.ts';
import { SQLITE_MEMORY } from '../../src/storage/dialects.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl, withoutPostgres } from '../support/services.ts';

const MIB = 1024 * 1024;

/** A node process that writes a MiB to `path` (and syncs it, where it can: not /dev/null), says so, then waits to be killed. */
async function writer(path: string): Promise<ChildProcess> {
  const script = `const fs = require('node:fs'); const fd = fs.openSync(process.argv[1], 'w');
    fs.writeSync(fd, Buffer.alloc(${MIB}, 1)); try { fs.fsyncSync(fd); } catch {} fs.closeSync(fd);
    process.stdout.write('written\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`writer exited with ${code}`)));
  });
  return child;
}

describe('the bytes a process wrote to storage', { skip: storageWrittenBytes(process.pid) === undefined && '/proc/PID/io is not readable here' }, () => {
  let directory: string;
  // Where the benchmark keeps its databases: a tmpfs /tmp would reach no storage.
  before(() => { directory = makeWorkDirectory('written-bytes-test'); });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('counts a file written and synced', async () => {
    const child = await writer(join(directory, 'data'));
    try {
      assert.ok(storageWrittenBytes(child.pid!)! >= MIB, `${storageWrittenBytes(child.pid!)} bytes`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('leaves out what went to /dev/null', async () => {
    const child = await writer('/dev/null');
    try {
      assert.ok(storageWrittenBytes(child.pid!)! < MIB / 4, `${storageWrittenBytes(child.pid!)} bytes`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('says nothing of a process that is gone', () => {
    assert.equal(storageWrittenBytes(spawnSync(process.execPath, ['-e', '0']).pid!), undefined);
  });
});

describe('the WAL position', () => {
  it('is not read on SQLite', async () => {
    const db = BenchDatabase.open(SQLITE_MEMORY);
    try {
      assert.equal(await db.walBytes(), undefined);
    } finally {
      await db.close();
    }
  });

  describe('on PostgreSQL', { skip: withoutPostgres }, () => {
    const database = new TemporaryPostgresDatabase(postgresServerUrl ?? 'postgres://unused', 'folio_bench_wal');
    let bench: BenchDatabase;
    before(async () => { bench = BenchDatabase.open(await database.create()); });
    after(async () => {
      await bench?.close();
      await database.drop();
    });

    it('moves by at least what a transaction wrote', async () => {
      await sql`create table filler (body text)`.execute(bench.db);
      const start = (await bench.walBytes())!;
      await sql`insert into filler select repeat(md5(i::text), 32) from generate_series(1, 1000) as i`.execute(bench.db);
      const moved = (await bench.walBytes())! - start;
      // A thousand rows of 1,024 characters each.
      assert.ok(moved >= 1000 * 1024, `${moved} bytes`);
      assert.ok(moved < 8 * MIB, `${moved} bytes`);
    });
  });
});
