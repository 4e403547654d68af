// The rows of `npm run bench`: what each one loads, what its ratio divides by,
// and the target it is held to.
import { join } from 'node:path';
import { type BenchDatabase, REDIRECT_URI } from './fixtures.ts';
import type { Peers } from './peers.ts';
import type { LoadResult, Server } from './processes.ts';

/** Every target of the benchmark, in one place. */
export const TARGETS = {
  /** The bearer GET's requests a second, as a share of bare Fastify answering the same JSON. */
  bearerVersusBareFastify: 0.6,
  /** client_credentials tokens a second, as a multiple of node-oidc-provider's. */
  clientCredentialsVersusOidcProvider: 1.5,
  /** The bearer GET among a million live tokens, during a purge, or beside token issues, against the same GET alone among a thousand. */
  bearerUnderStrain: 0.9,
  bearerP99Ms: 10,
  rssMb: 120,
  startMs: 1000,
} as const;

export interface Scenario {
  name: string;
  backend: string;
  server: Server;
  /** What the ratio divides by, measured just before and just after this scenario in each round. */
  reference?: Scenario;
  /** The reference's name in the table. */
  versus?: string;
  minRatio?: number;
  maxP99?: number;
  /** The load worker's spec (bench/load-worker.mjs); may seed the database first. */
  spec(): Promise<Record<string, unknown>>;
  /** After each measurement: a note for the log, and `spoilt` when the round did not measure the scenario, which fails its row. */
  measured?(result: LoadResult): Promise<{ note: string; spoilt?: string }>;
}

export interface BenchSettings {
  smoke: boolean;
  connections: number;
  /** Requests per scenario in a smoke run. */
  smokeRequests: number;
  /** Seconds per scenario in a full run. */
  duration: number;
  smallTokens: number;
  largeTokens: number;
  deadTokens: number;
  /** Where the code pools are written. */
  work: string;
}

export interface FolioServer {
  db: BenchDatabase;
  server: Server;
  /** An access token of the demo user, who owns the demo portfolios. */
  bearer: string;
  /** The same user's token for the MCP endpoint. */
  mcpBearer: string;
}

export interface FolioBackend {
  name: string;
  /** Among a thousand live tokens; its purge runs every second. */
  main: FolioServer;
  /** Among a million live tokens. */
  large: FolioServer;
  /** The Basic authorization of the demo's confidential client. */
  basic: string;
}

/** The bearer GET's row asks for this many client_credentials tokens a second beside it. */
const ISSUED_A_SECOND = 200;

/** Fresh authorization codes per second of measurement: more than the server exchanges, since past the end of the pool every answer is a 400. */
const CODES_A_SECOND = 20_000;

const PORTFOLIOS = '/api/v2/portfolios.json';

function loader(settings: BenchSettings) {
  return (server: Server, kind: string, path: string, extra: Record<string, unknown> = {}) => ({
    url: server.url, kind, path, connections: settings.connections,
    ...(settings.smoke ? { amount: settings.smokeRequests } : { duration: settings.duration }), ...extra,
  });
}

export function peerScenarios(peers: Peers, sqliteBearer: string, settings: BenchSettings) {
  const load = loader(settings);
  const { bare, fastifySqlite, bareToken, oidc, oidcBasic, oidcToken } = peers;
  const bareGet: Scenario = { name: 'bare Fastify GET (same JSON)', backend: '—', server: bare, spec: async () => load(bare, 'get', PORTFOLIOS) };
  const oidcIssue: Scenario = {
    name: 'oidc-provider client_credentials token', backend: 'memory', server: oidc,
    spec: async () => load(oidc, 'post', '/token', { headers: { authorization: oidcBasic }, form: { grant_type: 'client_credentials' } }),
  };
  const all: Scenario[] = [
    bareGet,
    // The distance from bare Fastify to this row is what the two reads cost on their own.
    { name: 'Fastify + the same two SQLite reads, nothing else', backend: '—', server: fastifySqlite, reference: bareGet, versus: 'bare Fastify',
      spec: async () => load(fastifySqlite, 'get', PORTFOLIOS, { headers: { authorization: `Bearer ${sqliteBearer}` } }) },
    oidcIssue,
    { name: 'oidc-provider introspection', backend: 'memory', server: oidc,
      spec: async () => load(oidc, 'post', '/token/introspection', { headers: { authorization: oidcBasic }, form: { token: oidcToken } }) },
    // The most any token endpoint served by Fastify on this core could reach.
    { name: 'bare Fastify POST /oauth2/token (a constant token answer)', backend: '—', server: bareToken, reference: oidcIssue, versus: 'oidc-provider token',
      spec: async () => load(bareToken, 'post', '/oauth2/token', { form: { grant_type: 'client_credentials' } }) },
  ];
  return { all, bareGet, oidcIssue };
}

export function folioScenarios(backend: FolioBackend, peers: { bareGet: Scenario; oidcIssue: Scenario }, settings: BenchSettings): Scenario[] {
  const { main, large, basic, name } = backend;
  const load = loader(settings);
  const count = (tokens: number) => (tokens >= 1e6 ? `${(tokens / 1e6).toLocaleString('en')}M` : tokens.toLocaleString('en'));
  const bearerGet = (server: FolioServer, extra: Record<string, unknown> = {}) =>
    load(server.server, 'get', PORTFOLIOS, { headers: { authorization: `Bearer ${server.bearer}` }, ...extra });
  const small = `${count(settings.smallTokens)} live tokens`;
  const bearerSmall: Scenario = {
    name: `bearer GET ${PORTFOLIOS} (${small})`, backend: name, server: main.server,
    reference: peers.bareGet, versus: 'bare Fastify', minRatio: TARGETS.bearerVersusBareFastify, maxP99: TARGETS.bearerP99Ms,
    spec: async () => bearerGet(main),
  };
  // The rows below are the same GET under some strain, each against the GET alone.
  const strained = { backend: name, reference: bearerSmall, versus: `${count(settings.smallTokens)} tokens`, minRatio: TARGETS.bearerUnderStrain, maxP99: TARGETS.bearerP99Ms };
  const token = { backend: name, server: main.server, reference: peers.oidcIssue, versus: 'oidc-provider token' };
  const authorization = { authorization: basic };
  const codesFile = join(settings.work, `codes-${name}.txt`);
  let deadBefore = 0;
  return [
    bearerSmall,
    { ...strained, name: `bearer GET ${PORTFOLIOS} (${count(settings.largeTokens)} live tokens)`, server: large.server, spec: async () => bearerGet(large) },
    // Expired credentials are purged in the background without stalling requests.
    { ...strained, name: `bearer GET ${PORTFOLIOS} (${small}) during a purge of dead ones`, server: main.server,
      spec: async () => {
        await main.db.addDeadTokens(Math.max(0, settings.deadTokens - await main.db.deadTokenCount()));
        deadBefore = await purgeUnderWay(main.db);
        return bearerGet(main);
      },
      measured: async (result) => {
        const left = await main.db.deadTokenCount();
        await main.db.deleteDeadTokens();
        const rate = settings.smoke ? '' : ` (${Math.round((deadBefore - left) / settings.duration).toLocaleString('en')} a second)`;
        const ended = left === 0 && !settings.smoke;
        return {
          note: `purged ${(deadBefore - left).toLocaleString('en')} dead tokens while measuring${rate}, ${left.toLocaleString('en')} left` +
            `${ended ? ': the purge ended before the measurement did; raise --dead-tokens' : ''}; ${result.requests} requests`,
          ...(ended ? { spoilt: 'the purge ended before the measurement did' } : {}),
        };
      } },
    // Token writes beside the API, as in production.
    { ...strained, name: `bearer GET ${PORTFOLIOS} (${small}) while ${ISSUED_A_SECOND} tokens a second are issued`, server: main.server,
      spec: async () => bearerGet(main, { issuing: {
        path: '/oauth2/token', body: 'grant_type=client_credentials', perSecond: ISSUED_A_SECOND,
        headers: { ...authorization, 'content-type': 'application/x-www-form-urlencoded' },
      } }),
      measured: async (result) => {
        const [issued, refused] = [result.issued ?? 0, result.issueRefused ?? []];
        return {
          note: `issued ${issued} tokens while measuring; ${result.requests} requests`,
          ...(refused.length > 0 ? { spoilt: `${refused.length} token requests failed (${refused.slice(0, 3).join(', ')})` } : {}),
        };
      } },
    // An MCP tool call reads what the bearer GET reads, through the MCP SDK: its cost beside that GET, no target.
    { backend: name, server: main.server, reference: bearerSmall, versus: 'bearer GET', name: 'POST /mcp tools/call list_portfolios',
      spec: async () => load(main.server, 'json', '/mcp', {
        headers: { authorization: `Bearer ${main.mcpBearer}`, accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_portfolios', arguments: {} } },
      }) },
    { ...token, name: 'POST /oauth2/token client_credentials', minRatio: TARGETS.clientCredentialsVersusOidcProvider,
      spec: async () => load(main.server, 'post', '/oauth2/token', { headers: authorization, form: { grant_type: 'client_credentials' } }) },
    { ...token, name: 'POST /oauth2/token refresh_token',
      spec: async () => load(main.server, 'refresh', '/oauth2/token', { headers: authorization, refreshTokens: await main.db.mintRefreshTokens() }) },
    { ...token, name: 'POST /oauth2/token authorization_code',
      spec: async () => {
        await main.db.seedCodes(settings.smoke ? settings.smokeRequests : settings.duration * CODES_A_SECOND, codesFile);
        return load(main.server, 'codes', '/oauth2/token', { headers: authorization, poolFile: codesFile, form: { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI } });
      } },
  ];
}

/** A bound to fail on rather than wait forever, far above the seconds the purge takes to start. */
const PURGE_START_WITHIN_MS = 120_000;

/**
 * Waits until the server's purge is deleting and returns the dead-token count then.
 * The count must fall twice: a first batch may have waited for the seeding's write
 * lock, and the purge rests after a batch in proportion to its length.
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
