// The tools under bench/ that judge one change or one part outside `npm run bench`, whose
// smoke run does not reach them: ab.ts, lone-requests.ts, start.ts, purge-batches.ts,
// sqlite-writes.ts and, where valgrind is installed, instructions.ts (callgrind.test.ts
// tests its parts anywhere). Each runs here once, small, against a bundle built for the
// test where it starts servers: it must print its figures, and leave no server, work
// directory or PostgreSQL database behind, also when a variant fails after its server has
// started.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { bundleServer } from '../../scripts/build.ts';
import { runBenchTool } from '../support/bench-tool.ts';
import { postgresServerUrl } from '../support/services.ts';

// Inside the project, so that the packages left external resolve from node_modules.
const OUTDIR = new URL(`../../node_modules/.cache/folio-one-off-tools-test-${process.pid}`, import.meta.url).pathname;
const SCRATCH = new URL('../../.tmp/', import.meta.url).pathname;

/** Processes running this test's bundle, by pid. */
function serversOfTheBundle(): Map<number, string> {
  return new Map(readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid): [number, string][] => {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return commandLine.includes(OUTDIR) ? [[Number(pid), commandLine]] : [];
    } catch {
      return []; // ended meanwhile
    }
  }));
}

/**
 * Servers of the bundle still running two seconds after the tool ended (a server sent
 * SIGKILL as the tool ends may take a moment to go), killed so that a failing test
 * leaves none behind either.
 */
async function serversLeftBehind(): Promise<string[]> {
  const deadline = performance.now() + 2000;
  let left = serversOfTheBundle();
  while (left.size > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = serversOfTheBundle();
  }
  for (const pid of left.keys()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* ended meanwhile */ }
  }
  return [...left].map(([pid, commandLine]) => `${pid}: ${commandLine}`);
}

const workDirectories = (tool: string) => (existsSync(SCRATCH) ? readdirSync(SCRATCH).filter((name) => name.startsWith(`${tool}-`)) : []);

/**
 * The throwaway PostgreSQL databases a tool's process named after its pid (folio_TOOL_PID,
 * and its copies folio_TOOL_PID_N) that it left behind, dropped so that a failing test
 * leaves none either.
 */
async function postgresDatabasesLeftBy(pid: number): Promise<string[]> {
  if (postgresServerUrl === undefined) return [];
  const admin = new pg.Client({ connectionString: postgresServerUrl });
  await admin.connect();
  try {
    const left = await admin.query<{ datname: string }>('select datname from pg_database where datname ~ $1', [`^folio_[a-z]+_${pid}(_\\d+)?$`]);
    for (const { datname } of left.rows) await admin.query(`drop database if exists "${datname}" with (force)`);
    return left.rows.map((row) => row.datname);
  } finally {
    await admin.end();
  }
}

/** Runs `args` and checks that it left no work directory of `tool`, no server and no PostgreSQL database behind. */
async function runLeavingNothing(tool: string, args: string[]) {
  const directoriesBefore = new Set(workDirectories(tool));
  const run = await runBenchTool(args);
  // Each is cleaned up as it is found, so all are looked for before any is asserted.
  const left = {
    servers: await serversLeftBehind(),
    workDirectories: workDirectories(tool).filter((name) => !directoriesBefore.has(name)),
    postgresDatabases: await postgresDatabasesLeftBy(run.pid),
  };
  assert.deepEqual(left, { servers: [], workDirectories: [], postgresDatabases: [] }, run.output);
  return run;
}

const withoutValgrind = spawnSync('valgrind', ['--version']).status === 0 ? false : 'valgrind is not installed';

/** `--postgres` where the tests have a PostgreSQL server, so that the tool's throwaway database is checked too. */
const onPostgres = postgresServerUrl === undefined ? [] : ['--postgres'];

describe('the one-off benchmark tools', { timeout: 300_000 }, () => {
  before(async () => bundleServer(OUTDIR));
  after(() => rmSync(OUTDIR, { recursive: true, force: true }));

  it('ab.ts compares a build with the bare Fastify route and stops both', async () => {
    const run = await runLeavingNothing('ab', ['bench/ab.ts', '--scenario', 'get', '--rounds', '1', '--duration', '1', `folio=${OUTDIR}`, 'bare=@bare']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^folio +\d+ req\/s +[\d.]+ µs CPU\/request/m);
    assert.match(run.output, /^bare +\d+ req\/s .* ratio to folio: req\/s [\d.]+×, CPU\/request [\d.]+×$/m);
  });

  it('ab.ts compares a build\'s token issue with the bare token route and oidc-provider, for client_credentials only', async () => {
    const run = await runLeavingNothing('ab', ['bench/ab.ts', '--scenario', 'client_credentials', '--rounds', '1', '--duration', '1',
      `folio=${OUTDIR}`, 'token=@bare-token', 'oidc=@oidc']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^token +\d+ req\/s .* ratio to folio: req\/s [\d.]+×, CPU\/request [\d.]+×$/m);
    assert.match(run.output, /^oidc +\d+ req\/s .* ratio to folio: req\/s [\d.]+×, CPU\/request [\d.]+×$/m);
    const refused = await runLeavingNothing('ab', ['bench/ab.ts', '--scenario', 'refresh', `folio=${OUTDIR}`, 'token=@bare-token']);
    assert.notEqual(refused.status, 0, refused.output);
    assert.match(refused.output, /@bare-token answers client_credentials only/);
  });

  it('ab.ts stops a build whose answer for @bare was refused, and drops the copies it made', async () => {
    // The variant's server reads an empty database of its own, which knows none of the prepared tokens.
    const emptyDatabase = `${SCRATCH}one-off-tools-empty-${process.pid}.db`;
    try {
      const run = await runLeavingNothing('ab', ['bench/ab.ts', ...onPostgres, '--own-databases', '--scenario', 'get', '--rounds', '1', '--duration', '1',
        `empty=${OUTDIR}:FOLIO_DATABASE_URL=${emptyDatabase}`, 'bare=@bare']);
      assert.notEqual(run.status, 0, run.output);
      assert.match(run.output, /the portfolio list for @bare was answered 401/);
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

  it('start.ts times two builds\' start-up', async () => {
    const run = await runLeavingNothing('start', ['bench/start.ts', ...onPostgres, '--rounds', '1', `folio=${OUTDIR}`, `quiet=${OUTDIR}:FOLIO_LOG_LEVEL=warn`]);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^folio +ready in +\d+ ms  CPU by then +\d+ ms \(median of 1\)$/m);
    assert.match(run.output, /^quiet +ready in .* ratio to folio: ready [\d.]+×, CPU [\d.]+×$/m);
  });

  it('purge-batches.ts times the purge batch by batch', async () => {
    const sqlite = await runLeavingNothing('purge', ['bench/purge-batches.ts', '--rows', '2000']);
    assert.equal(sqlite.status, 0, sqlite.output);
    assert.match(sqlite.output, /^dead access tokens: 2,000 rows in [\d.]+ s, \d+ batches; each held the event loop/m);
    assert.match(sqlite.output, /^sign-in failure counters, all stale: 2,000 rows/m);
    if (postgresServerUrl === undefined) return;
    const postgres = await runLeavingNothing('purge', ['bench/purge-batches.ts', '--postgres', '--rows', '2000', '--live', '100']);
    assert.equal(postgres.status, 0, postgres.output);
    assert.match(postgres.output, /^dead access tokens beside 100 live ones: 2,000 rows in [\d.]+ s/m);
  });

  it('instructions.ts counts a build\'s instructions a request beside bare Fastify\'s', { skip: withoutValgrind }, async () => {
    // Too few requests for V8 to optimize anything: only that the tool works is checked.
    const run = await runLeavingNothing('instructions', ['bench/instructions.ts', '--scenario', 'get', '--warm', '20', '--requests', '50', '--windows', '1',
      `folio=${OUTDIR}`, 'bare=@bare']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^folio +\d+ instructions\/request  \(windows \d+( migrating)?\)$/m);
    assert.match(run.output, /^bare +\d+ instructions\/request .* [\d.]+× folio$/m);
  });

  it('instructions.ts stops the other server under callgrind when one variant fails', { skip: withoutValgrind }, async () => {
    const run = await runLeavingNothing('instructions', ['bench/instructions.ts', '--scenario', 'get', '--warm', '20', '--requests', '50', '--windows', '1',
      `folio=${OUTDIR}`, `broken=${OUTDIR}:NODE_FLAGS=--no-such-flag`]);
    assert.notEqual(run.status, 0, run.output);
    assert.match(run.output, /broken: exited with 9/);
  });

  it('sqlite-writes.ts prices a refresh\'s statements with and without two indexes', async () => {
    const run = await runLeavingNothing('sqlite-writes', ['bench/sqlite-writes.ts', '--tokens', '1000', '--batches', '20', '--batch', '10', '--chains', '20',
      'shipped=', 'grants=access_tokens_grant,refresh_tokens_grant']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /^shipped +look-up +[\d.]+ µs  statements +[\d.]+ µs .*\[synchronous=FULL, checkpoint at \d+ pages\]$/m);
    assert.match(run.output, /^grants +look-up .*\(dropped: access_tokens_grant, refresh_tokens_grant\)$/m);
  });
});
