// Two or more builds of Folio against each other on one database, in
// interleaved short loads (their order rotating each round), for judging one change: prints the median requests a
// second, the median server CPU time per request (user + system, from /proc:
// steadier than req/s on a shared machine, whose neighbours steal whole slices
// of a core), and each variant's median per-round ratios to the first. On a
// PostgreSQL server on this machine, the CPU its processes serving the variant's
// connections spent a request is printed too: on two cores the database's share
// bounds the token endpoints as much as Folio's own (docs/performance.md).
// The share of that CPU spent on the event loop's thread is printed too; the rest is
// other threads' (libuv's pool, where the group commit's fsyncs run, and V8's
// collector and compiler), which share the server's core but not its loop.
// What a request wrote is printed too: on SQLite the bytes the server's process
// wrote to storage (WAL frames and checkpoints, from /proc), on PostgreSQL the WAL
// the server logged (its position before and after: every database's).
//   node --import tsx bench/ab.ts [--scenario get|client_credentials|refresh|authorization_code] [--rounds N] [--duration S] [--own-databases] [--postgres] [--issuing N] NAME=DIST_DIR[:ENV=VALUE,...] ...
// With --issuing N (the GET only) the load generator also asks each Folio build for N
// client_credentials tokens a second while its GET is measured (bench/issuing.mjs): writes beside
// the reads, as a server that issues tokens and serves the API at once sees.
// A variant's BESIDE=introspection makes those N requests introspections of another
// token, which write nothing, BESIDE=reading the same GET with another token, on
// sockets of their own, and BESIDE=nothing leaves its GET alone: one run then
// tells what a request of another kind costs the GET from what its write adds, e.g.
//   --issuing 200 alone=dist:BESIDE=nothing more=dist:BESIDE=reading intro=dist:BESIDE=introspection tokens=dist
// With --tokens N (1 to 100, the GET only) the GET's requests take turns with N
// of the prepared access tokens instead of one, as N clients' would.
// The database is a SQLite file, or with --postgres a throwaway database on the
// local PostgreSQL server (FOLIO_TEST_POSTGRES_URL), dropped at the end.
// With --own-databases each variant serves a copy of the prepared file instead of the
// one shared file: for changes to how writes reach the disk (a checkpoint run by one
// server writes back every server's pages). With --postgres too, a copy of the
// prepared database each, on the one server: for builds whose migrations differ
// (each migrates its own copy at start, and a build refuses a newer one's database).
// NODE_FLAGS=... among a variant's settings replaces the production command's node flags (space-separated), e.g.
//   semi4=dist:NODE_FLAGS=--max-semi-space-size=4 --heap-growing-percent=50
// DROP_INDEXES=a+b (with --own-databases) drops those indexes from the variant's copy before
// it starts: what an index costs, measured without a one-off build (and without the
// correctness it gives: a look-up it served then scans), e.g.
//   nogrants=dist:DROP_INDEXES=access_tokens_grant+refresh_tokens_grant
// On PostgreSQL the refresh has favoured the variants started later, identical builds by up to
// 1.25x (docs/performance.md, twenty-sixth session): judge a change there in both orders,
// by the geometric mean of the two ratios, and run an A/A pair of each build, since the
// twenty-seventh session found the favour to depend on the build (1.22x against 1.03x).
// For the GET, NAME=@bare and NAME=@floor run bench/run.ts's two Fastify baselines (after a Folio build, whose answer @bare serves);
// for client_credentials, NAME=@oidc runs its node-oidc-provider and NAME=@bare-token its bare Fastify token route.
// e.g. `git worktree add /tmp/before HEAD~1 && (cd /tmp/before && npm ci && npm run build)`, then
//   node --import tsx bench/ab.ts before=/tmp/before/dist after=dist
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase, CODES_A_SECOND, REDIRECT_URI, sideRequestSpec } from './fixtures.ts';
import { createDatabase, dropDatabase, postgresAdminUrl } from './postgres.ts';
import { cpuMs, cpuMsEach, folioServerEnv, freePort, mainThreadCpuMs, runLoad, startServer, storageWrittenBytes, type Server } from './processes.ts';
import { median, medianRatio, turnOrder } from './report.ts';
import { isBaseline, OIDC_CLIENT, parseVariant, readyPath, saveBareBody, tokenPath, TOKEN_BASELINES, type Variant, variantArgv, variantEnv } from './variants.ts';
import { makeWorkDirectory } from './work-directory.ts';

const { values: args, positionals } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'get' },
    rounds: { type: 'string', default: '6' },
    duration: { type: 'string', default: '3' },
    'own-databases': { type: 'boolean', default: false },
    postgres: { type: 'boolean', default: false },
    issuing: { type: 'string', default: '0' },
    tokens: { type: 'string', default: '1' },
  },
  allowPositionals: true,
});
if (positionals.length < 2) throw new Error('name at least two variants: NAME=DIST_DIR[:ENV=VALUE,...]');
const tokenBaseline = positionals.map(parseVariant).find((variant) => TOKEN_BASELINES.includes(variant.dist));
if (args.scenario !== 'client_credentials' && tokenBaseline !== undefined) throw new Error(`${tokenBaseline.dist} answers client_credentials only`);
const issuingPerSecond = Number(args.issuing);
if (!(issuingPerSecond >= 0 && issuingPerSecond <= 1000)) throw new Error('--issuing: tokens a second, 0 to 1000');
if (issuingPerSecond > 0 && args.scenario !== 'get') throw new Error('--issuing goes with the GET only');
if (issuingPerSecond === 0 && positionals.some((word) => parseVariant(word).beside !== 'token')) throw new Error('BESIDE says what --issuing sends: name a rate');
const getTokens = Number(args.tokens);
if (!(Number.isInteger(getTokens) && getTokens >= 1 && getTokens <= 100)) throw new Error('--tokens: 1 to 100');
if (getTokens > 1 && args.scenario !== 'get') throw new Error('--tokens goes with the GET only');

const work = makeWorkDirectory('ab');
const adminUrl = args.postgres ? await postgresAdminUrl() : undefined;
if (args.postgres && adminUrl === undefined) throw new Error('--postgres: no PostgreSQL server answers (set FOLIO_TEST_POSTGRES_URL)');
const postgresDatabase = adminUrl === undefined ? undefined : await createDatabase(adminUrl, `folio_ab_${process.pid}`);
const databaseUrl = postgresDatabase?.url ?? join(work, 'ab.db');
const db = BenchDatabase.open(databaseUrl);
const fixtures = await db.prepare();
const basic = `Basic ${Buffer.from(`${fixtures.clientId}:${fixtures.clientSecret}`).toString('base64')}`;
const oidcBasic = `Basic ${Buffer.from(`${OIDC_CLIENT.id}:${OIDC_CLIENT.secret}`).toString('base64')}`;

async function spec(url: string, variant: Variant, variantDb: BenchDatabase): Promise<Record<string, unknown>> {
  const common = { url, connections: 50, duration: Number(args.duration) };
  switch (args.scenario) {
    case 'get':
      return {
        ...common, kind: 'get', path: '/api/v2/portfolios.json', headers: { authorization: `Bearer ${fixtures.bearerTokens[0]}` },
        ...(getTokens > 1 && !isBaseline(variant) ? { bearerTokens: fixtures.bearerTokens.slice(0, getTokens) } : {}),
        // Another token than the GET's: the GET's cached look-up is left as it is.
        ...(issuingPerSecond > 0 && !isBaseline(variant) && variant.beside !== 'nothing'
          ? { issuing: sideRequestSpec(variant.beside, basic, fixtures.bearerTokens[1]!, issuingPerSecond) } : {}),
      };
    case 'client_credentials':
      return { ...common, kind: 'post', path: tokenPath(variant), headers: { authorization: variant.dist === '@oidc' ? oidcBasic : basic }, form: { grant_type: 'client_credentials' } };
    case 'refresh':
      return { ...common, kind: 'refresh', path: '/oauth2/token', headers: { authorization: basic }, refreshTokens: await variantDb.mintRefreshTokens() };
    case 'authorization_code': {
      // Fresh codes for each load, more than it can spend (bench/run.ts says why).
      const poolFile = join(work, `codes-${variant.name}.txt`);
      await variantDb.seedCodes(common.duration * CODES_A_SECOND, poolFile);
      return { ...common, kind: 'codes', path: '/oauth2/token', headers: { authorization: basic }, poolFile, form: { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI } };
    }
    default:
      throw new Error(`unknown scenario ${args.scenario}`);
  }
}

interface Measured {
  name: string; variant: Variant; server: Server; db: BenchDatabase;
  rps: number[]; cpuUs: number[]; databaseCpuUs: number[]; writtenBytes: number[]; systemShare: number[]; mainThreadShare: number[]; p99: number[]; rssMb: number[];
}

/** The CPU milliseconds of each PostgreSQL process serving `db`'s other connections, from /proc; none where the server is elsewhere. */
async function databaseCpuMs(db: BenchDatabase): Promise<Map<number, number>> {
  return cpuMsEach(await db.clientBackendPids(), 'postgres');
}

/** The database's CPU milliseconds for `db`'s other connections since `before`, or undefined where none is on this machine. */
async function databaseCpuMsSince(db: BenchDatabase, before: Map<number, number>): Promise<number | undefined> {
  const after = await databaseCpuMs(db);
  if (after.size === 0) return undefined;
  // A connection opened during the load counts from its start.
  return [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);
}
/**
 * What the variant has written so far: on PostgreSQL the server's WAL position (every
 * database's, so only the variant under load may write meanwhile), on SQLite the bytes
 * the server's process wrote to storage (the WAL, and the database file at
 * checkpoints: with one shared file, other variants' pages too, so use --own-databases);
 * undefined for a baseline, or where neither can be read.
 */
async function writtenSoFar(variant: Measured): Promise<number | undefined> {
  if (isBaseline(variant.variant)) return undefined;
  return variant.db.kind === 'postgres' ? variant.db.walBytes() : storageWrittenBytes(variant.server.child.pid!);
}

const variants: Measured[] = [];
// Kept apart from `variants`: a copy made for a variant whose server then fails to start is cleaned up too.
const ownDatabases: BenchDatabase[] = [];
try {
  for (const [index, word] of positionals.entries()) {
    const variant = parseVariant(word);
    const port = await freePort();
    const variantDb = !args['own-databases'] ? db
      : postgresDatabase === undefined ? await db.copyTo(join(work, `${index}.db`))
        : await db.copyAs(adminUrl!, `${postgresDatabase.name}_${index}`);
    if (variantDb !== db) ownDatabases.push(variantDb);
    if (variant.dropIndexes !== undefined) {
      if (!args['own-databases']) throw new Error(`${variant.name}: DROP_INDEXES needs --own-databases, or every variant would lose the indexes`);
      await variantDb.dropIndexes(variant.dropIndexes);
    }
    const bodyFile = join(work, 'body.json');
    if (variant.dist === '@bare' && !existsSync(bodyFile)) throw new Error('@bare serves a Folio build\'s answer: name one before it');
    const argv = variantArgv(variant, port, variantDb.url, bodyFile);
    const server = await startServer(variant.name, argv, port, readyPath(variant), { ...folioServerEnv(variantDb.url, port, 'info'), ...variantEnv(variant) });
    // Recorded before anything else can fail, so that the finally below stops its server.
    variants.push({ name: variant.name, variant, server, db: variantDb, rps: [], cpuUs: [], databaseCpuUs: [], writtenBytes: [], systemShare: [], mainThreadShare: [], p99: [], rssMb: [] });
    if (!isBaseline(variant) && !existsSync(bodyFile)) {
      await saveBareBody(server.url, fixtures.bearerTokens[0]!, bodyFile);
    }
  }
  for (const variant of variants) await runLoad({ ...(await spec(variant.server.url, variant.variant, variant.db)), duration: 1 }, undefined);
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const variant of turnOrder(variants.length, round).map((index) => variants[index]!)) {
      const pid = variant.server.child.pid!;
      // Made first: minting refresh tokens or seeding codes writes to the database.
      const load = await spec(variant.server.url, variant.variant, variant.db);
      const before = cpuMs(pid);
      const mainThreadBefore = mainThreadCpuMs(pid);
      // The baselines use no database: the connections there are the other builds'.
      const databaseBefore = isBaseline(variant.variant) ? undefined : await databaseCpuMs(variant.db);
      const writtenBefore = await writtenSoFar(variant);
      const result = await runLoad(load, pid);
      const refused = result.issueRefused ?? [];
      if (refused.length > 0) throw new Error(`--issuing: ${refused.length} token requests failed (${refused.slice(0, 3).join(', ')})`);
      if (result.non2xx > 0) throw new Error(`${variant.name}: ${result.non2xx} answers were not 2xx (${JSON.stringify(result.statuses)})`);
      variant.rps.push(result.rps);
      const after = cpuMs(pid);
      const mainThreadAfter = mainThreadCpuMs(pid);
      const [user, system] = [after.user - before.user, after.system - before.system];
      const mainThread = mainThreadAfter.user + mainThreadAfter.system - mainThreadBefore.user - mainThreadBefore.system;
      variant.cpuUs.push(((user + system) * 1000) / result.requests);
      const databaseMs = databaseBefore && await databaseCpuMsSince(variant.db, databaseBefore);
      if (databaseMs !== undefined) variant.databaseCpuUs.push((databaseMs * 1000) / result.requests);
      const writtenAfter = await writtenSoFar(variant);
      if (writtenBefore !== undefined && writtenAfter !== undefined) variant.writtenBytes.push((writtenAfter - writtenBefore) / result.requests);
      variant.systemShare.push(system / (user + system));
      variant.mainThreadShare.push(mainThread / (user + system));
      variant.p99.push(result.p99);
      variant.rssMb.push(result.maxRssMb ?? Number.NaN);
    }
  }
  const [first] = variants;
  // A round whose reference is 0 (the GET's database CPU, on a quiet connection) has no ratio.
  const ratioTo = (values: number[], references: number[]) => {
    const ratio = medianRatio(values, references);
    return Number.isNaN(ratio) ? '—' : `${ratio.toFixed(2)}×`;
  };
  for (const variant of variants) {
    const measuredDatabase = variant.databaseCpuUs.length === variant.cpuUs.length && variant.cpuUs.length > 0;
    const ratios = variant === first ? '' : `  ratio to ${first!.name}: req/s ${ratioTo(variant.rps, first!.rps)},`
      + ` CPU/request ${ratioTo(variant.cpuUs, first!.cpuUs)}`
      + (measuredDatabase && first!.databaseCpuUs.length === first!.cpuUs.length ? `, database CPU/request ${ratioTo(variant.databaseCpuUs, first!.databaseCpuUs)}` : '');
    process.stdout.write(`${variant.name.padEnd(12)} ${median(variant.rps).toFixed(0).padStart(6)} req/s  ${median(variant.cpuUs).toFixed(1).padStart(6)} µs CPU/request`
      + ` (${(median(variant.systemShare) * 100).toFixed(0)}% in the kernel, ${(median(variant.mainThreadShare) * 100).toFixed(0)}% on the event loop's thread)`
      + (measuredDatabase ? `  database ${median(variant.databaseCpuUs).toFixed(1)} µs CPU/request` : '')
      + (variant.writtenBytes.length > 0 ? `  ${variant.db.kind === 'postgres' ? 'WAL' : 'disk writes'} ${median(variant.writtenBytes).toFixed(0)} B/request` : '')
      + `  p99 ${median(variant.p99)} ms  peak RSS ${Math.max(...variant.rssMb).toFixed(0)} MB${ratios}\n`);
  }
} finally {
  await Promise.all(variants.map((variant) => variant.server.stop()));
  for (const ownDb of ownDatabases) await ownDb.close();
  await db.storage.close();
  if (postgresDatabase !== undefined) {
    for (const ownDb of ownDatabases) await dropDatabase(adminUrl!, new URL(ownDb.url).pathname.slice(1));
    await dropDatabase(adminUrl!, postgresDatabase.name);
  }
  rmSync(work, { recursive: true, force: true });
}
