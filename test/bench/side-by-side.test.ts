// bench/ab.ts and bench/lone-requests.ts judge one change outside `npm run bench`, so its
// smoke run does not reach them. Each runs here once, small, against a bundle built for
// the test: it must print its figures, and leave no server, work directory or PostgreSQL
// database behind, also when a variant fails after its server has started.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { bundleServer } from '../../scripts/build.ts';
import { postgresServerUrl } from '../support/services.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
// Inside the project, so that the packages left external resolve from node_modules.
const OUTDIR = new URL(`../../node_modules/.cache/folio-side-by-side-test-${process.pid}`, import.meta.url).pathname;
const SCRATCH = new URL('../../.tmp/', import.meta.url).pathname;

/** The tool's exit status and everything it printed. */
async function runTool(args: string[]): Promise<{ status: number | null; pid: number; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { status, pid: child.pid!, output };
}

/** Processes still running this test's bundle. */
function serversOfTheBundle(): string[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return commandLine.includes(OUTDIR) ? [`${pid}: ${commandLine}`] : [];
    } catch {
      return []; // ended meanwhile
    }
  });
}

const workDirectories = (tool: string) => (existsSync(SCRATCH) ? readdirSync(SCRATCH).filter((name) => name.startsWith(`${tool}-`)) : []);

/** Runs `args` and checks that it left no work directory of `tool` and no server behind. */
async function runLeavingNothing(tool: string, args: string[]) {
  const directoriesBefore = new Set(workDirectories(tool));
  const run = await runTool(args);
  assert.deepEqual(serversOfTheBundle(), [], run.output);
  assert.deepEqual(workDirectories(tool).filter((name) => !directoriesBefore.has(name)), [], run.output);
  return run;
}

describe('bench/ab.ts and bench/lone-requests.ts', { timeout: 120_000 }, () => {
  before(async () => bundleServer(OUTDIR));
  after(() => rmSync(OUTDIR, { recursive: true, force: true }));

  it('ab.ts compares a build with the bare Fastify route and stops both', async () => {
    const run = await runLeavingNothing('ab', ['bench/ab.ts', '--scenario', 'get', '--rounds', '1', '--duration', '1', `folio=${OUTDIR}`, 'bare=@bare']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^folio +\d+ req\/s +[\d.]+ µs CPU\/request/m);
    assert.match(run.output, /^bare +\d+ req\/s .* ratio to folio: req\/s [\d.]+×, CPU\/request [\d.]+×$/m);
  });

  it('ab.ts stops a build whose answer for @bare was refused, and drops the copies it made', async () => {
    // The variant's server reads an empty database of its own, which knows none of the prepared tokens.
    const emptyDatabase = `${SCRATCH}side-by-side-empty-${process.pid}.db`;
    const onPostgres = postgresServerUrl === undefined ? [] : ['--postgres'];
    try {
      const run = await runLeavingNothing('ab', ['bench/ab.ts', ...onPostgres, '--own-databases', '--scenario', 'get', '--rounds', '1', '--duration', '1',
        `empty=${OUTDIR}:FOLIO_DATABASE_URL=${emptyDatabase}`, 'bare=@bare']);
      assert.notEqual(run.status, 0, run.output);
      assert.match(run.output, /the portfolio list for @bare was answered 401/);
      if (postgresServerUrl !== undefined) {
        const admin = new pg.Client({ connectionString: postgresServerUrl });
        await admin.connect();
        try {
          const left = await admin.query('select datname from pg_database where datname like $1', [`folio_ab_${run.pid}%`]);
          assert.deepEqual(left.rows, []);
        } finally {
          await admin.end();
        }
      }
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(emptyDatabase + suffix, { force: true });
    }
  });

  it('lone-requests.ts measures a build\'s CPU for requests that come alone', async () => {
    const run = await runLeavingNothing('lone-requests', ['bench/lone-requests.ts', '--rate', '50', '--seconds', '1', '--rounds', '1', '--request', 'introspection',
      `folio=${OUTDIR}`, 'bare=@bare']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^folio +\d+ µs CPU\/request \(\d+% on the event loop's thread\), 50 introspection requests a second$/m);
    assert.match(run.output, /^bare +\d+ µs CPU\/request .* ratio to folio: [\d.]+×$/m);
  });
});
