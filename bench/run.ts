// `npm run bench`: Folio against bare Fastify routes and node-oidc-provider, in
// one run, on SQLite and PostgreSQL, printed as a table with each row's target
// (bench/scenarios.ts). `npm run bench:smoke`: a few hundred requests per
// scenario, checking only that every answer is 2xx.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase } from './fixtures.ts';
import { startPeers } from './peers.ts';
import { createDatabase, dropDatabase, postgresAdminUrl } from './postgres.ts';
import { HAS_TASKSET, type LoadResult, type Server, folioServerEnv, freePort, runLoad, serveScript, startServer } from './processes.ts';
import { type Check, type Row, failures, median, renderTable } from './report.ts';
import { type BenchSettings, type FolioBackend, type Scenario, TARGETS, folioScenarios, peerScenarios } from './scenarios.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    /** Seconds per scenario and round. */
    duration: { type: 'string', default: '5' },
    connections: { type: 'string' },
    'large-tokens': { type: 'string' },
    /** Dead access tokens the server's purge deletes during the purge scenario. */
    'dead-tokens': { type: 'string' },
    /** tsx (the sources), dist (the default), or the dist directory of another build. */
    server: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    postgres: { type: 'boolean', default: true },
    /** Also write the table to this file. */
    out: { type: 'string' },
    /** Only scenarios whose name or backend matches this regular expression. */
    only: { type: 'string' },
    /** Start Folio with --cpu-prof, writing its profiles here (they open in Chrome's DevTools). */
    'cpu-prof': { type: 'string' },
  },
  allowNegative: true,
});
const smoke = args.smoke!;
const rounds = Number(args.rounds ?? (smoke ? 1 : 3));
const duration = Number(args.duration);
/**
 * Dead tokens seeded per second of measurement: more than the purge deletes in that
 * time, since once they are gone the GET is no longer measured during a purge.
 */
const DEAD_TOKENS_A_SECOND = 60_000;
const work = makeWorkDirectory('bench');
const settings: BenchSettings = {
  smoke, duration, work,
  connections: Number(args.connections ?? (smoke ? 4 : 50)),
  smokeRequests: 200,
  smallTokens: 1000,
  largeTokens: Number(args['large-tokens'] ?? (smoke ? 5000 : 1_000_000)),
  deadTokens: Number(args['dead-tokens'] ?? (smoke ? 2000 : duration * DEAD_TOKENS_A_SECOND)),
};
const serverKind = args.server ?? (smoke ? 'tsx' : 'dist');
const profiling = args['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`];
// A build runs as `npm run serve` runs it, with the same Node flags and environment.
const production = serveScript();
const fromSources = serverKind === 'tsx';
const folioArgs = [...profiling, ...(fromSources ? ['--import', 'tsx', 'src/main.ts', 'serve'] : [...production.nodeFlags, join(serverKind, 'main.js'), 'serve'])];
const folioEnv = fromSources ? {} : production.env;
const only = args.only === undefined ? undefined : new RegExp(args.only, 'i');

const servers: Server[] = [];
const databases: BenchDatabase[] = [];
const pgDatabases: string[] = [];
const log = (text: string) => process.stderr.write(`${text}\n`);

async function startFolio(name: string, url: string, liveTokens: number, env: Record<string, string> = {}) {
  const db = BenchDatabase.open(url);
  databases.push(db);
  const port = await freePort();
  const fixtures = await db.prepare(`http://127.0.0.1:${port}/mcp`);
  await db.addLiveTokens(liveTokens - fixtures.bearerTokens.length - 1);
  const server = await startServer(name, folioArgs, port, '/readyz', { ...folioServerEnv(url, port, args['log-level']!), ...folioEnv, ...env });
  servers.push(server);
  log(`${name}: ready in ${server.readyMs.toFixed(0)} ms, ${await db.liveTokenCount()} tokens`);
  return { db, server, bearer: fixtures.bearerTokens[0]!, mcpBearer: fixtures.mcpBearer, fixtures };
}

/**
 * The main servers look for dead credentials every second rather than every five
 * minutes, so that the purge scenario's dead tokens are deleted while it is measured.
 * In the other scenarios nothing has been dead for the hour the purge waits.
 */
const PURGE_EVERY_SECOND = { FOLIO_PURGE_INTERVAL_SECONDS: '1' };

async function startBackend(name: string, mainUrl: string, largeUrl: string): Promise<FolioBackend> {
  const startMain = () => startFolio(`folio-${name}`, mainUrl, settings.smallTokens, PURGE_EVERY_SECOND);
  const startLarge = () => startFolio(`folio-${name}-large`, largeUrl, settings.largeTokens);
  // A full run starts one server at a time, so that each start-up is timed on a quiet core.
  const [main, large] = smoke ? await Promise.all([startMain(), startLarge()]) : [await startMain(), await startLarge()];
  const { clientId, clientSecret } = main.fixtures;
  return { name, main, large, basic: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` };
}

async function startPostgresBackend(): Promise<FolioBackend[]> {
  const admin = args.postgres ? await postgresAdminUrl() : undefined;
  if (admin === undefined) {
    log('PostgreSQL: not reachable, skipped');
    return [];
  }
  const mainDb = await createDatabase(admin, `folio_bench_${process.pid}`);
  pgDatabases.push(mainDb.name);
  const largeDb = await createDatabase(admin, `folio_bench_${process.pid}_large`);
  pgDatabases.push(largeDb.name);
  return [await startBackend('PostgreSQL', mainDb.url, largeDb.url)];
}

const measure = (scenario: Scenario) => async () => runLoad(await scenario.spec(), scenario.server.child.pid);

/**
 * Runs every scenario `rounds` times. The machine's speed drifts over tens of
 * seconds, so each round's ratio divides by the reference measured just before and
 * just after the scenario (the geometric mean of the two), which a drift moves alike.
 */
async function measureRounds(scenarios: Scenario[]): Promise<Row[]> {
  const results = new Map<Scenario, { own: LoadResult[]; ratios: number[]; spoilt: string[] }>(scenarios.map((scenario) => [scenario, { own: [], ratios: [], spoilt: [] }]));
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      const { reference } = scenario;
      const row = results.get(scenario)!;
      // Before the spec, which may seed the database or start a purge the reference must not run beside.
      const before = reference && await measure(reference)();
      const result = await measure(scenario)();
      row.own.push(result);
      const afterwards = await scenario.measured?.(result);
      const after = reference && await measure(reference)();
      if (before && after) row.ratios.push(result.rps / Math.sqrt(before.rps * after.rps));
      if (afterwards?.spoilt !== undefined) row.spoilt.push(afterwards.spoilt);
      log(`round ${round}: ${scenario.name} [${scenario.backend}] ${result.rps.toFixed(0)} req/s p99 ${result.p99} ms, peak RSS ${result.maxRssMb?.toFixed(0) ?? '?'} MB` +
        `${result.non2xx + result.errors > 0 ? ` (${result.non2xx} non-2xx ${JSON.stringify(result.statuses)}, ${result.errors} errors)` : ''}` +
        `${afterwards === undefined ? '' : `; ${afterwards.note}`}` +
        `${before && after ? ` (${scenario.versus} just before and after: ${before.rps.toFixed(0)} and ${after.rps.toFixed(0)} req/s)` : ''}`);
    }
  }
  return scenarios.map((scenario) => {
    const { own, ratios, spoilt } = results.get(scenario)!;
    return { scenario: scenario.name, backend: scenario.backend, rounds: own, ratios, versus: scenario.versus, minRatio: scenario.minRatio, maxP99: scenario.maxP99, spoilt };
  });
}

/** The targets that are not a row's: memory under load and start-up, per backend. */
function backendChecks(backends: FolioBackend[], rows: Row[]): Check[] {
  return backends.flatMap((backend) => {
    const own = rows.filter((row) => row.backend === backend.name);
    if (own.length === 0) return []; // --only left none of this backend's scenarios
    const rss = Math.max(...own.flatMap((row) => row.rounds.map((result) => result.maxRssMb ?? 0)));
    const ready = median([backend.main.server.readyMs, backend.large.server.readyMs]);
    return [
      { what: 'RSS under load (highest VmRSS sample)', backend: backend.name, value: `${rss.toFixed(0)} MB`, target: `≤ ${TARGETS.rssMb} MB`, pass: rss <= TARGETS.rssMb },
      { what: 'start to ready (spawn → /readyz 200)', backend: backend.name, value: `${ready.toFixed(0)} ms`, target: `≤ ${TARGETS.startMs} ms`, pass: ready <= TARGETS.startMs },
    ];
  });
}

async function main(): Promise<number> {
  log(`folio bench: ${smoke ? 'smoke' : 'full'}, server ${serverKind}, ${rounds} round(s), ${settings.connections} connections, ` +
    `${smoke ? `${settings.smokeRequests} requests` : `${duration} s`} per scenario, taskset ${HAS_TASKSET ? 'server on core 0, load on core 1' : 'unavailable'}`);
  const startSqlite = () => startBackend('SQLite', join(work, 'main.db'), join(work, 'large.db'));
  const backends = smoke
    ? (await Promise.all([startSqlite().then((one) => [one]), startPostgresBackend()])).flat()
    : [await startSqlite(), ...await startPostgresBackend()];

  const sqlite = backends[0]!;
  const peers = await startPeers({ url: sqlite.main.server.url, bearer: sqlite.main.bearer, sqliteFile: join(work, 'main.db') }, work, (server) => servers.push(server));
  const peerRows = peerScenarios(peers, sqlite.main.bearer, settings);
  const scenarios = [...peerRows.all, ...backends.flatMap((backend) => folioScenarios(backend, peerRows, settings))]
    .filter((scenario) => only === undefined || only.test(`${scenario.name} [${scenario.backend}]`));

  if (!smoke) {
    log('warming up');
    // References too: --only may have left one out that a scenario still divides by.
    const warm = new Set(scenarios.flatMap((scenario) => (scenario.reference ? [scenario.reference, scenario] : [scenario])));
    for (const scenario of warm) await scenario.measured?.(await runLoad({ ...(await scenario.spec()), duration: 1 }, scenario.server.child.pid));
  }
  const rows = await measureRounds(scenarios);

  const table = renderTable(rows, smoke ? [] : backendChecks(backends, rows));
  process.stdout.write(`\n${table}\n\n`);
  if (args.out !== undefined) writeFileSync(args.out, `${table}\n`);

  const broken = rows.filter((row) => failures(row) > 0 || row.rounds.some((round) => round.requests === 0));
  for (const row of broken) log(`not every answer was 2xx: ${row.scenario} [${row.backend}]`);
  return broken.length === 0 ? 0 : 1;
}

async function cleanup() {
  await Promise.all(servers.map((server) => server.stop()));
  for (const db of databases) await db.close().catch(() => undefined);
  const admin = pgDatabases.length > 0 ? await postgresAdminUrl() : undefined;
  for (const name of pgDatabases) if (admin !== undefined) await dropDatabase(admin, name).catch((error: unknown) => log(`dropping ${name}: ${String(error)}`));
  rmSync(work, { recursive: true, force: true });
}

let status = 1;
try {
  status = await main();
} catch (error) {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await cleanup();
}
process.exit(status);
