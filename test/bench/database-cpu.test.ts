// bench/ab.ts charges each build the CPU of the PostgreSQL processes serving its
// connections: the right processes (not its own look-up's, not another
// database's), and nothing for a process that is gone or is not PostgreSQL's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { BenchDatabase } from '../../bench/fixtures.ts';
import { cpuMsEach } from '../../bench/processes.ts';
import { SQLITE_MEMORY } from '../../src/storage/dialects.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl, withoutPostgres } from '../support/services.ts';

describe('the CPU of processes by pid', () => {
  it('reads this process and leaves out one that has exited', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
    const spent = cpuMsEach([process.pid, exited], readFileSync('/proc/self/comm', 'utf8').trim());
    assert.deepEqual([...spent.keys()], [process.pid]);
    assert.ok(spent.get(process.pid)! > 0);
  });

  it('leaves out a process running another command, as a pid of another machine would find', () => {
    assert.equal(cpuMsEach([process.pid], 'postgres').size, 0);
  });

  it('finds no database processes for SQLite', async () => {
    const db = BenchDatabase.open(SQLITE_MEMORY);
    try {
      assert.deepEqual(await db.clientBackendPids(), []);
    } finally {
      await db.close();
    }
  });
});

describe('the PostgreSQL processes serving a benchmarked server', { skip: withoutPostgres }, () => {
  const served = new TemporaryPostgresDatabase(postgresServerUrl ?? 'postgres://unused', 'folio_bench_cpu');
  const elsewhere = new TemporaryPostgresDatabase(postgresServerUrl ?? 'postgres://unused', 'folio_bench_cpu');
  let bench: BenchDatabase;
  let server: pg.Client;
  let other: pg.Client;

  before(async () => {
    server = new pg.Client({ connectionString: await served.create() });
    other = new pg.Client({ connectionString: await elsewhere.create() });
    await Promise.all([server.connect(), other.connect()]);
    bench = BenchDatabase.open(served.url);
  });
  after(async () => {
    await Promise.all([bench?.close(), server?.end(), other?.end()]);
    await Promise.all([served.drop(), elsewhere.drop()]);
  });

  const backendPid = async (client: pg.Client) => (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

  it('are the other connections to its database, whose work shows in their CPU', async () => {
    const serving = await backendPid(server);
    const pids = await bench.clientBackendPids();
    assert.deepEqual(pids, [serving], 'neither the look-up\'s own connection nor another database\'s');

    const [beforeWork] = cpuMsEach(pids, 'postgres').values();
    await server.query('select count(*) from generate_series(1, 3000000)');
    const [afterWork] = cpuMsEach(pids, 'postgres').values();
    assert.ok(afterWork! - beforeWork! >= 10, `the query's CPU was counted (${beforeWork} → ${afterWork} ms)`);
  });
});
