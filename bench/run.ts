// `npm run bench`: Folio against bare Fastify routes and node-oidc-provider, in
// one run, on SQLite and PostgreSQL. `npm run bench:smoke`: a few hundred
// requests per scenario, checking only that every answer is 2xx.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase, CODES_A_SECOND, issuingSpec, REDIRECT_URI } from './fixtures.ts';
import { dropDatabase, createDatabase, postgresAdminUrl } from './postgres.ts';
import { HAS_TASKSET, type LoadResult, type Server, folioServerEnv, freePort, runLoad, serveScript, startServer } from './processes.ts';
import { type Check, type Row, failures, median, renderTable } from './report.ts';
import { startPeers } from './peers.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string' },
    'large-tokens': { type: 'string' },
    /** Dead access tokens the background purge deletes during the purge scenario. */
    'dead-tokens': { type: 'string' },
    /** tsx (the sources), dist (the default), or the directory of another build under the repo. */
    server: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    postgres: { type: 'boolean', default: true },
    out: { type: 'string' },
    /** Only scenarios whose name or backend matches this regular expression. */
    only: { type: 'string' },
    /** Start Folio with --cpu-prof, writing profiles here (summarise with bench/profile-summary.ts). */
    'cpu-prof': { type: 'string' },
  },
  allowNegative: true,
});
const smoke = args.smoke!;
const rounds = Number(args.rounds ?? (smoke ? 1 : 3));
const duration = Number(args.duration);
const connections = Number(args.connections ?? (smoke ? 4 : 50));
const smokeAmount = 200;
const largeTokens = Number(args['large-tokens'] ?? (smoke ? 5000 : 1_000_000));
const smallTokens = 1000;
/**
 * Dead tokens seeded per second of measurement, for the purge scenario: above the
 * most the purge has deleted (23,600 a second), since once they are gone the GET
 * measured is no longer one during a purge.
 */
const DEAD_TOKENS_A_SECOND = 60_000;
const deadTokens = Number(args['dead-tokens'] ?? (smoke ? 2000 : duration * DEAD_TOKENS_A_SECOND));
const serverKind = args.server ?? (smoke ? 'tsx' : 'dist');
const profiling = args['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`];
const PRODUCTION = serveScript();
// --server tsx runs the sources; dist, or the directory of another build, the bundle as deployed.
const fromSources = serverKind === 'tsx';
const folioArgs = [...profiling, ...(fromSources ? ['--import', 'tsx', 'src/main.ts', 'serve'] : [...PRODUCTION.nodeFlags, join(serverKind, 'main.js'), 'serve'])];
const folioEnv = fromSources ? {} : PRODUCTION.env;
const only = args.only === undefined ? undefined : new RegExp(args.only, 'i');

interface Scenario {
  name: string;
  backend: string;
  server: Server;
  versus?: string;
  /** The scenario `versus` names, when it is not one of the baselines. */
  reference?: Scenario;
  minRatio?: number;
  maxP99?: number;
  /** Builds the worker's spec; may write fresh single-use credentials first. */
  spec(): Promise<Record<string, unknown>>;
  /**
   * Called after each measurement: `note` is logged with the round, and `spoilt`
   * says why the round did not measure the scenario, which fails its row.
   */
  measured?(result: LoadResult): Promise<{ note: string; spoilt?: string }>;
}

interface FolioBackend {
  name: string;
  main: { db: BenchDatabase; server: Server; bearer: string[] };
  large: { db: BenchDatabase; server: Server; bearer: string[] };
  basic: string;
}

const work = makeWorkDirectory('bench');
const servers: Server[] = [];
const databases: BenchDatabase[] = [];
const pgDatabases: string[] = [];
const log = (text: string) => process.stderr.write(`${text}\n`);

async function startFolio(name: string, url: string, liveTokens: number, env: Record<string, string> = {}) {
  const db = BenchDatabase.open(url);
  databases.push(db);
  const fixtures = await db.prepare();
  await db.addLiveTokens(liveTokens - fixtures.bearerTokens.length);
  const port = await freePort();
  const server = await startServer(name, folioArgs, port, '/readyz', { ...folioServerEnv(url, port, args['log-level']!), ...folioEnv, ...env });
  servers.push(server);
  log(`${name}: ready in ${server.readyMs.toFixed(0)} ms, ${await db.liveTokenCount()} tokens`);
  return { db, server, fixtures };
}

/**
 * The main servers look for dead credentials every second rather than every five
 * minutes, so the purge scenario's dead tokens are deleted while it is measured.
 * In the other scenarios nothing has been dead for the hour the purge waits, and
 * a purge that finds nothing is three index look-ups.
 */
const PURGE_EVERY_SECOND = { FOLIO_PURGE_INTERVAL_SECONDS: '1' };

async function startBackend(name: string, mainUrl: string, largeUrl: string): Promise<FolioBackend> {
  const [main, large] = smoke
    ? await Promise.all([startFolio(`folio-${name}`, mainUrl, smallTokens, PURGE_EVERY_SECOND), startFolio(`folio-${name}-large`, largeUrl, largeTokens)])
    : [await startFolio(`folio-${name}`, mainUrl, smallTokens, PURGE_EVERY_SECOND), await startFolio(`folio-${name}-large`, largeUrl, largeTokens)];
  const { clientId, clientSecret } = main.fixtures;
  return {
    name,
    main: { db: main.db, server: main.server, bearer: main.fixtures.bearerTokens },
    large: { db: large.db, server: large.server, bearer: large.fixtures.bearerTokens },
    basic: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
  };
}

function load(server: Server, kind: string, path: string, extra: Record<string, unknown> = {}) {
  return { url: server.url, kind, path, connections, ...(smoke ? { amount: smokeAmount } : { duration }), ...extra };
}

/** client_credentials tokens a second asked for beside the GET in its row with token writes. */
const ISSUED_A_SECOND = 200;

/** The latency target, held by the bearer GET rows; the token rows have none. */
const P99_MS = 10;

function folioScenarios(backend: FolioBackend): Scenario[] {
  const { main, large, basic, name } = backend;
  const large1 = `${(largeTokens / 1e6).toLocaleString('en')}M`;
  const bearer = (tokens: string[]) => ({ authorization: `Bearer ${tokens[0]}` });
  const codesFile = join(work, `codes-${name}.txt`);
  const bearerSmall: Scenario = {
    name: `bearer GET /api/v2/portfolios.json (${smallTokens.toLocaleString('en')} live tokens)`, backend: name, server: main.server,
    versus: 'bare Fastify', minRatio: 0.6, maxP99: P99_MS,
    spec: async () => load(main.server, 'get', '/api/v2/portfolios.json', { headers: bearer(main.bearer) }),
  };
  const versusSmall = `${smallTokens.toLocaleString('en')} tokens`;
  let deadBefore = 0;
  return [
    bearerSmall,
    { name: `bearer GET /api/v2/portfolios.json (${largeTokens >= 1e6 ? large1 : largeTokens.toLocaleString('en')} live tokens)`, backend: name, server: large.server,
      versus: versusSmall, reference: bearerSmall, minRatio: 0.9, maxP99: P99_MS,
      spec: async () => load(large.server, 'get', '/api/v2/portfolios.json', { headers: bearer(large.bearer) }) },
    // "Expired tokens and codes are purged in the background without stalling requests":
    // the same GET while the server's own purge deletes dead tokens, held to the
    // million-token row's bounds against the same GET with nothing to purge.
    { name: `bearer GET /api/v2/portfolios.json (${smallTokens.toLocaleString('en')} live tokens) during a purge of dead ones`, backend: name, server: main.server,
      versus: versusSmall, reference: bearerSmall, minRatio: 0.9, maxP99: P99_MS,
      spec: async () => {
        await main.db.addDeadTokens(Math.max(0, deadTokens - await main.db.deadTokenCount()));
        deadBefore = await purgeUnderWay(main.db);
        return load(main.server, 'get', '/api/v2/portfolios.json', { headers: bearer(main.bearer) });
      },
      measured: async (result) => {
        const left = await main.db.deadTokenCount();
        await main.db.deleteDeadTokens();
        const seconds = smoke ? undefined : duration;
        const rate = seconds === undefined ? '' : ` (${Math.round((deadBefore - left) / seconds).toLocaleString('en')} a second)`;
        const ended = left === 0 && !smoke;
        return {
          note: `purged ${(deadBefore - left).toLocaleString('en')} dead tokens while measuring${rate}, ${left.toLocaleString('en')} left` +
            `${ended ? ': the purge ended before the measurement did; raise --dead-tokens' : ''}; ${result.requests} requests`,
          ...(ended ? { spoilt: 'the purge ended before the measurement did' } : {}),
        };
      } },
    // Token writes beside the API, as in production: the same GET while the bench
    // asks the same server for tokens at a steady rate, held to the same bounds.
    // One token, as in the GET's own row, so that the issues are the only difference:
    // tokens taken in turn (bench/ab.ts --tokens) cost throughput by themselves.
    { name: `bearer GET /api/v2/portfolios.json (${smallTokens.toLocaleString('en')} live tokens) while ${ISSUED_A_SECOND} tokens a second are issued`, backend: name, server: main.server,
      versus: versusSmall, reference: bearerSmall, minRatio: 0.9, maxP99: P99_MS,
      spec: async () => load(main.server, 'get', '/api/v2/portfolios.json', { headers: bearer(main.bearer), issuing: issuingSpec(basic, ISSUED_A_SECOND) }),
      measured: async (result) => {
        const [issued, refused] = [result.issued ?? 0, result.issueRefused ?? []];
        return {
          note: `issued ${issued} tokens while measuring; ${result.requests} requests`,
          ...(refused.length > 0 ? { spoilt: `${refused.length} token requests failed (${refused.slice(0, 3).join(', ')})` } : {}),
        };
      } },
    { name: 'POST /oauth2/token client_credentials', backend: name, server: main.server, versus: 'oidc-provider token', minRatio: 1.5,
      spec: async () => load(main.server, 'post', '/oauth2/token', { headers: { authorization: basic }, form: { grant_type: 'client_credentials' } }) },
    { name: 'POST /oauth2/token refresh_token', backend: name, server: main.server, versus: 'oidc-provider token',
      spec: async () => load(main.server, 'refresh', '/oauth2/token', { headers: { authorization: basic }, refreshTokens: await main.db.mintRefreshTokens() }) },
    { name: 'POST /oauth2/token authorization_code', backend: name, server: main.server, versus: 'oidc-provider token',
      spec: async () => {
        await main.db.seedCodes(smoke ? smokeAmount : duration * CODES_A_SECOND, codesFile);
        return load(main.server, 'codes', '/oauth2/token', { headers: { authorization: basic }, poolFile: codesFile, form: { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI } });
      } },
  ];
}

/**
 * Long enough for the rest after a purge batch that waited a few seconds for the
 * seeding's write lock in a build from before that rest was bounded (`--server`).
 */
const PURGE_START_WITHIN_MS = 120_000;

/**
 * Waits until the server's purge is deleting (the dead-token count has fallen twice
 * since seeding ended) and returns the count then. Twice: a batch that waited for
 * the seeding's write lock counts the wait as work and rests after it, now a second
 * at most (src/maintenance.ts), in older builds nineteen times the wait (on the
 * sixteenth session's slow machine, more than 30 s).
 */
async function purgeUnderWay(db: BenchDatabase): Promise<number> {
  let last = await db.deadTokenCount();
  let falls = 0;
  const deadline = performance.now() + PURGE_START_WITHIN_MS;
  for (;;) {
    const now = await db.deadTokenCount();
    if (now < last) falls += 1;
    last = now;
    if (falls >= 2 || now === 0) return now;
    if (performance.now() > deadline) throw new Error(`the server's purge did not start within ${PURGE_START_WITHIN_MS / 1000} s (${last} dead tokens)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<number> {
  log(`folio bench: ${smoke ? 'smoke' : 'full'}, server ${serverKind}, ${rounds} round(s), ${connections} connections, ` +
    `${smoke ? `${smokeAmount} requests` : `${duration} s`} per scenario, taskset ${HAS_TASKSET ? 'server on core 0, load on core 1' : 'unavailable'}`);
  const startPostgres = async () => {
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
  };
  // Seeding and start-up overlap in a smoke run; a full run starts one server at a
  // time so that each start-up time is measured on a quiet core.
  const backends: FolioBackend[] = smoke
    ? (await Promise.all([startBackend('SQLite', join(work, 'main.db'), join(work, 'large.db')).then((one) => [one]), startPostgres()])).flat()
    : [await startBackend('SQLite', join(work, 'main.db'), join(work, 'large.db')), ...await startPostgres()];

  const sqlite = backends[0]!;
  const { bare, fastifySqlite: floor, bareToken, oidc, oidcBasic, oidcToken } = await startPeers(
    { url: sqlite.main.server.url, bearer: sqlite.main.bearer[0]!, sqliteFile: join(work, 'main.db') }, work, (server) => servers.push(server));

  const scenarios: Scenario[] = ([
    { name: 'bare Fastify GET (same JSON)', backend: '—', server: bare, spec: async () => load(bare, 'get', '/api/v2/portfolios.json') },
    { name: 'Fastify + the same two SQLite reads, nothing else', backend: '—', server: floor, versus: 'bare Fastify',
      spec: async () => load(floor, 'get', '/api/v2/portfolios.json', { headers: { authorization: `Bearer ${sqlite.main.bearer[0]}` } }) },
    { name: 'oidc-provider client_credentials token', backend: 'memory', server: oidc,
      spec: async () => load(oidc, 'post', '/token', { headers: { authorization: oidcBasic }, form: { grant_type: 'client_credentials' } }) },
    { name: 'oidc-provider introspection', backend: 'memory', server: oidc,
      spec: async () => load(oidc, 'post', '/token/introspection', { headers: { authorization: oidcBasic }, form: { token: oidcToken } }) },
    { name: 'bare Fastify POST /oauth2/token (a constant token answer)', backend: '—', server: bareToken, versus: 'oidc-provider token',
      spec: async () => load(bareToken, 'post', '/oauth2/token', { form: { grant_type: 'client_credentials' } }) },
    ...backends.flatMap(folioScenarios),
  ] as Scenario[]).filter((scenario) => only === undefined || only.test(`${scenario.name} [${scenario.backend}]`));
  const results = new Map<Scenario, LoadResult[]>(scenarios.map((scenario) => [scenario, []]));
  const spoilt = new Map<Scenario, string[]>(scenarios.map((scenario) => [scenario, []]));

  if (!smoke) {
    log('warming up');
    for (const scenario of scenarios) {
      const result = await runLoad({ ...(await scenario.spec()), duration: 1 }, scenario.server.child.pid);
      await scenario.measured?.(result);
    }
  }
  const barePeer = scenarios.find((scenario) => scenario.server === bare);
  const oidcPeer = scenarios.find((scenario) => scenario.server === oidc && scenario.name.includes('client_credentials token'));
  /**
   * What this scenario's ratio divides by: a peer (bare Fastify, oidc-provider's
   * token endpoint) or another of Folio's scenarios; --only may have left it out.
   */
  const referenceOf = (scenario: Scenario) => scenario.versus === 'bare Fastify' ? barePeer
    : scenario.versus === 'oidc-provider token' ? oidcPeer
      : scenarios.find((other) => other === scenario.reference);
  // The machine's speed drifts in spells of tens of seconds: two loads of bare
  // Fastify about ten seconds apart differed by up to 1.5x (README). A ratio is
  // therefore taken against its reference measured again around the scenario,
  // immediately before and immediately after, divided by the geometric mean of
  // the two: a drift during the three loads moves both sides alike, where
  // against one load before it, or the reference's own row earlier in the
  // round, it counted wholly for or against the scenario.
  const around = new Map<Scenario, number[]>(scenarios.map((scenario) => [scenario, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      const reference = referenceOf(scenario);
      const measureReference = async () => (reference === undefined ? undefined : runLoad(await reference.spec(), reference.server.child.pid));
      // Before the spec, which may seed the database or start a purge the reference must not run beside.
      const before = await measureReference();
      const result = await runLoad(await scenario.spec(), scenario.server.child.pid);
      results.get(scenario)!.push(result);
      const afterwards = await scenario.measured?.(result);
      const after = await measureReference();
      if (before !== undefined && after !== undefined) around.get(scenario)!.push(Math.sqrt(before.rps * after.rps));
      if (afterwards?.spoilt !== undefined) spoilt.get(scenario)!.push(afterwards.spoilt);
      const note = afterwards === undefined ? '' : `; ${afterwards.note}`;
      log(`round ${round}: ${scenario.name} [${scenario.backend}] ${result.rps.toFixed(0)} req/s p99 ${result.p99} ms, peak RSS ${result.maxRssMb?.toFixed(0) ?? "?"} MB` +
        `${result.non2xx + result.errors > 0 ? ` (${result.non2xx} non-2xx ${JSON.stringify(result.statuses)}, ${result.errors} errors)` : ''}${note}` +
        `${before === undefined || after === undefined ? '' : ` (${scenario.versus} just before and after: ${before.rps.toFixed(0)} and ${after.rps.toFixed(0)} req/s)`}`);
    }
  }

  const rows: Row[] = scenarios.map((scenario) => {
    const own = results.get(scenario)!;
    const against = around.get(scenario)!;
    const ratios = against.length === 0 ? [] : own.map((result, round) => result.rps / against[round]!);
    return { scenario: scenario.name, backend: scenario.backend, rounds: own, ratios, versus: scenario.versus, minRatio: scenario.minRatio, maxP99: scenario.maxP99,
      spoilt: spoilt.get(scenario)! };
  });

  const checks: Check[] = [];
  for (const backend of backends) {
    const own = scenarios.filter((scenario) => scenario.backend === backend.name);
    if (own.length === 0) continue; // --only left none of this backend's scenarios
    const rss = Math.max(...own.flatMap((scenario) => results.get(scenario)!.map((result) => result.maxRssMb ?? 0)));
    checks.push({ what: 'RSS under load (highest VmRSS sample)', backend: backend.name, value: `${rss.toFixed(0)} MB`, target: '≤ 120 MB', pass: rss <= 120 });
    const ready = median([backend.main.server.readyMs, backend.large.server.readyMs]);
    checks.push({ what: 'start to ready (spawn → /readyz 200)', backend: backend.name, value: `${ready.toFixed(0)} ms`, target: '≤ 1000 ms', pass: ready <= 1000 });
  }

  const table = renderTable(rows, smoke ? [] : checks);
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

