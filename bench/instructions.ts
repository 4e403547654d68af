// Builds of Folio (and the bare Fastify baseline) compared by the instructions a
// request costs, counted by valgrind's callgrind. A count does not move with what
// else the machine is doing, where time on this shared machine moves by 8% between
// two runs of one build: this judges changes too small for bench/ab.ts to see.
//   node --import tsx bench/instructions.ts [--scenario get|client_credentials|refresh] [--postgres] [--cache-sim] [--warm N] [--requests N] [--windows N] [--keep] NAME=DIST_DIR[:ENV=VALUE,...] ... [bare=@bare | oidc=@oidc token=@bare-token]
// With --postgres the builds serve one throwaway database on the local PostgreSQL
// server (FOLIO_TEST_POSTGRES_URL), dropped at the end; the database's own
// processes are not counted.
// Each server runs under callgrind with counting off while `--warm` requests let
// V8 optimize the hot code, then counts `--windows` windows of `--requests`
// requests each (ten connections, one request each at a time). A window's count
// leaves out TurboFan's background compiling (bench/callgrind.ts); the printed
// figure is the median window's. With --keep the dumps stay, for
// `callgrind_annotate --inclusive=yes DUMP` (JIT code shows as addresses: add
// NODE_FLAGS=--perf-basic-prof --interpreted-frames-native-stack to a variant
// and match them against /tmp/perf-PID.map).
// A server can settle into a V8 state that costs every request more, whatever
// the build: a fifth more instructions in some runs, Node's process.nextTick
// migrating its objects between maps each call (bench/callgrind.ts).
// A window spending over 1% of its count migrating is marked `migrating`: run
// that variant again rather than compare it.
// With --cache-sim callgrind also simulates the caches (the host's first-level
// sizes, an 8 MB last level) and each variant's line adds the misses a request,
// medians of the windows: for two builds whose instructions are alike and whose
// time is not (docs/performance.md).
// The first-level instruction and data misses are I1mr and D1mr + D1mw; the
// last-level ones (ILmr, DLmr, DLmw) are few here.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { countWindow } from './callgrind.ts';
import { BenchDatabase } from './fixtures.ts';
import { createDatabase, dropDatabase, postgresAdminUrl } from './postgres.ts';
import { folioServerEnv, freePort, listensOn, startServer } from './processes.ts';
import { median } from './report.ts';
import { isBaseline, OIDC_CLIENT, parseVariant, readyPath, refuseDroppedIndexes, saveBareBody, tokenPath, TOKEN_BASELINES, type Variant, variantArgv, variantEnv } from './variants.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args, positionals } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'get' },
    warm: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '1000' },
    windows: { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
    postgres: { type: 'boolean', default: false },
    'cache-sim': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (positionals.length === 0) throw new Error('name at least one variant: NAME=DIST_DIR[:ENV=VALUE,...]');
if (!['get', 'client_credentials', 'refresh'].includes(args.scenario)) throw new Error(`unknown scenario ${args.scenario}: get, client_credentials or refresh`);
const tokenBaseline = positionals.map(parseVariant).find((variant) => TOKEN_BASELINES.includes(variant.dist));
if (args.scenario !== 'client_credentials' && tokenBaseline !== undefined) throw new Error(`${tokenBaseline.dist} answers client_credentials only`);
if (args.scenario !== 'get' && positionals.some((word) => parseVariant(word).dist === '@bare')) throw new Error('@bare answers the GET only');
const CONNECTIONS = 10;
// Under callgrind a server starts about twenty times slower.
const READY_WITHIN_MS = 300_000;
// The machine has two cores; a third server would only share them.
const AT_ONCE = 2;

const work = makeWorkDirectory('instructions');
const adminUrl = args.postgres ? await postgresAdminUrl() : undefined;
if (args.postgres && adminUrl === undefined) throw new Error('--postgres: no PostgreSQL server answers (set FOLIO_TEST_POSTGRES_URL)');
const postgresDatabase = adminUrl === undefined ? undefined : await createDatabase(adminUrl, `folio_instructions_${process.pid}`);
const db = BenchDatabase.open(postgresDatabase?.url ?? join(work, 'bench.db'));
const fixtures = await db.prepare();
const bodyFile = join(work, 'body.json');
const variants = positionals.map(parseVariant);
refuseDroppedIndexes(variants, 'bench/instructions.ts');

interface Request { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }

/** The requests a scenario sends, one after another; a refresh follows rotation chains. */
interface Scenario { next(): Request; answered(body: string): void }

async function scenarioFor(variant: Variant, variantDb: BenchDatabase): Promise<Scenario> {
  if (args.scenario === 'get') {
    const request: Request = { method: 'GET', path: '/api/v2/portfolios.json', headers: { authorization: `Bearer ${fixtures.bearerTokens[0]}` } };
    return { next: () => request, answered: () => {} };
  }
  const client = variant.dist === '@oidc' ? OIDC_CLIENT : { id: fixtures.clientId, secret: fixtures.clientSecret };
  const headers = { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' };
  if (args.scenario === 'client_credentials') {
    const request: Request = { method: 'POST', path: tokenPath(variant), headers, body: 'grant_type=client_credentials' };
    return { next: () => request, answered: () => {} };
  }
  // Each answer's refresh token is a later request's (RFC 9700 §4.14.2 rotation).
  const pool = await variantDb.mintRefreshTokens();
  return {
    next: () => ({ method: 'POST', path: tokenPath(variant), headers, body: `grant_type=refresh_token&refresh_token=${pool.shift()}` }),
    answered: (body) => { pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token); },
  };
}

function send(agent: http.Agent, port: number, request: Request): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, agent, method: request.method, path: request.path, headers: request.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.once('end', () => resolve({ status: response.statusCode!, body }));
    });
    outgoing.once('error', reject);
    outgoing.end(request.body);
  });
}

async function load(agent: http.Agent, port: number, scenario: Scenario, count: number): Promise<void> {
  let left = count;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (left-- > 0) {
      const { status, body } = await send(agent, port, scenario.next());
      if (status !== 200) throw new Error(`answered ${status}, not 200 (${body.slice(0, 300)}): a count of refusals would mean nothing`);
      scenario.answered(body);
    }
  }));
}

async function waitUntilReady(child: ChildProcess, port: number, path: string, stderr: () => string): Promise<void> {
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${stderr()}`);
    if (performance.now() - started > READY_WITHIN_MS) throw new Error(`not ready within ${READY_WITHIN_MS / 1000} s: ${stderr()}`);
    try {
      // Valgrind runs the server in its own process, so the child's pid holds the socket.
      if ((await fetch(`http://127.0.0.1:${port}${path}`)).ok && listensOn(child.pid!, port) !== false) return;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Window { perRequest: number; migrating: boolean; firstLevelMisses: { instructions: number; data: number } }

// The servers under callgrind still running. Two are measured at once, and when
// one fails the script ends before the other's measure() can stop it: left
// behind, a server under callgrind kept running, taking the CPU of every later
// benchmark on the machine.
const running = new Set<ChildProcess>();

/** Instructions a request, per window, TurboFan's background compiling left out. */
async function measure(variant: Variant, index: number): Promise<Window[]> {
  // On PostgreSQL the builds share the one throwaway database; only its own process is counted.
  const variantDb = postgresDatabase === undefined ? await db.copyTo(join(work, `${index}.db`)) : db;
  const dumps = join(work, `dumps-${index}.out`);
  const port = await freePort();
  const child = spawn('valgrind', [
    '--tool=callgrind', `--cache-sim=${args['cache-sim'] ? 'yes' : 'no'}`, '--instr-atstart=no', `--callgrind-out-file=${dumps}`,
    process.execPath, ...variantArgv(variant, port, variantDb.url, bodyFile),
  ], { env: { ...process.env, ...folioServerEnv(variantDb.url, port, 'info'), ...variantEnv(variant) }, stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const callgrind = (...command: string[]) => execFileSync('callgrind_control', [...command, String(child.pid)], { stdio: 'ignore' });
  try {
    await waitUntilReady(child, port, readyPath(variant), () => stderr);
    const scenario = await scenarioFor(variant, variantDb);
    await load(agent, port, scenario, Number(args.warm));
    callgrind('--instr=on');
    const perWindow: Window[] = [];
    for (let window = 0; window < Number(args.windows); window++) {
      callgrind('--zero');
      await load(agent, port, scenario, Number(args.requests));
      callgrind('--dump');
      const newest = readdirSync(work).filter((file) => file.startsWith(`dumps-${index}.out.`))
        .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop()!;
      const { total, compiling, migrating, events } = countWindow(join(work, newest));
      const perRequest = (event: string) => (events[event] ?? 0) / Number(args.requests);
      perWindow.push({
        perRequest: (total - compiling) / Number(args.requests), migrating: migrating > total / 100,
        firstLevelMisses: { instructions: perRequest('I1mr'), data: perRequest('D1mr') + perRequest('D1mw') },
      });
    }
    if (args.keep) process.stdout.write(`${variant.name}: dumps in ${dumps}.*\n`);
    return perWindow;
  } catch (error) {
    throw new Error(`${variant.name}: ${(error as Error).message}`);
  } finally {
    agent.destroy();
    child.kill('SIGKILL');
    running.delete(child);
    if (variantDb !== db) await variantDb.close();
  }
}

try {
  if (variants.some((variant) => variant.dist === '@bare')) {
    // @bare serves a Folio build's answer: one build, started briefly without callgrind, gives it.
    const build = variants.find((variant) => !isBaseline(variant));
    if (build === undefined) throw new Error('@bare serves a Folio build\'s answer: name a build too');
    const port = await freePort();
    const server = await startServer(build.name, variantArgv(build, port, db.url, bodyFile), port, '/readyz', { ...folioServerEnv(db.url, port, 'info'), ...variantEnv(build) });
    try {
      await saveBareBody(server.url, fixtures.bearerTokens[0]!, bodyFile);
    } finally {
      await server.stop();
    }
  }
  const results: Window[][] = new Array(variants.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, variants.length) }, async () => {
    while (next < variants.length) {
      const index = next++;
      results[index] = await measure(variants[index]!, index);
    }
  }));
  const medians = results.map((windows) => median(windows.map((window) => window.perRequest)));
  variants.forEach((variant, index) => {
    const windows = results[index]!.map((window) => window.perRequest.toFixed(0) + (window.migrating ? ' migrating' : ''));
    const ratio = index === 0 ? '' : `  ${(medians[index]! / medians[0]!).toFixed(3)}× ${variants[0]!.name}`;
    const misses = (kind: 'instructions' | 'data') => median(results[index]!.map((window) => window.firstLevelMisses[kind])).toFixed(0);
    const cache = args['cache-sim'] ? `  first-level misses/request: ${misses('instructions')} instruction, ${misses('data')} data` : '';
    process.stdout.write(`${variant.name.padEnd(12)} ${medians[index]!.toFixed(0).padStart(8)} instructions/request  (windows ${windows.join(', ')})${ratio}${cache}\n`);
  });
} finally {
  for (const child of running) child.kill('SIGKILL');
  await db.storage.close();
  if (postgresDatabase !== undefined) await dropDatabase(adminUrl!, postgresDatabase.name);
  if (!args.keep) rmSync(work, { recursive: true, force: true });
}
