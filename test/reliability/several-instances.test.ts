// Several instances (issue #7, DESIGN §4 scale-out): two Folio processes on one
// PostgreSQL database and one Redis. Tokens cross instances, single use and
// rotation hold across them, and rate limits are counted once for both.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { REDIS_KEY_PREFIX } from '../../src/platform/rate-limit/redis.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import {
  Browser, PASSWORD, REDIRECT_URI, type RegisteredClient, TemporaryPostgresDatabase, apiStatus, clientCredentials, folioAt, pause, redeemCode, refresh, report,
} from './support.ts';
import { postgresServerUrl, redisServerUrl } from '../support/services.ts';

const skip = postgresServerUrl === undefined || redisServerUrl === undefined
  ? `${postgresServerUrl === undefined ? 'FOLIO_TEST_POSTGRES_URL' : 'FOLIO_TEST_REDIS_URL'} is not set (several instances need PostgreSQL and Redis)`
  : false;
if (skip) console.log(`[reliability] several-instances: skipped: ${skip}`);
const RATE_LIMIT = 20;
const CONCURRENT_REFRESHES = 100;
const CODE_RACES = 10;

const countOf = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('two instances on one PostgreSQL database and one Redis', { skip }, () => {
  const database = new TemporaryPostgresDatabase(postgresServerUrl ?? 'postgres://unused');
  const redis = skip ? undefined : new Redis(redisServerUrl!, { lazyConnect: true });
  const servers: ServerProcess[] = [];
  let web: RegisteredClient;
  let machine: RegisteredClient;
  const rateLimitKeys: string[] = [];

  before(async () => {
    const url = await database.create();
    folioAt(url, 'migrate');
    // Rate-limit keys in the shared Redis are folio:rl:<application>:<user>; ids no
    // other database on this server is likely to use keep this run's keys its own.
    const { db } = openPostgres(url);
    try {
      await sql`alter table users alter column id restart with ${sql.lit(randomInt(1e8, 2e9))}`.execute(db);
      await sql`alter table applications alter column id restart with ${sql.lit(randomInt(1e8, 2e9))}`.execute(db);
    } finally {
      await db.destroy();
    }
    folioAt(url, 'user', 'create', '--email', 'scale@example.test', '--password', PASSWORD);
    web = JSON.parse(folioAt(url, 'app', 'create', '--owner', 'scale@example.test', '--name', 'Web', '--redirect-uri', REDIRECT_URI, '--json'));
    machine = JSON.parse(folioAt(url, 'app', 'create', '--owner', 'scale@example.test', '--name', 'Machine', '--redirect-uri', REDIRECT_URI, '--json'));
    const ids = openPostgres(url).db;
    try {
      const { id: userId } = await ids.selectFrom('users').select('id').executeTakeFirstOrThrow();
      for (const { id } of await ids.selectFrom('applications').select('id').orderBy('id').execute()) rateLimitKeys.push(`${REDIS_KEY_PREFIX}${id}:${userId}`);
    } finally {
      await ids.destroy();
    }
    const env = { FOLIO_DATABASE_URL: url, FOLIO_REDIS_URL: redisServerUrl!, FOLIO_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) };
    servers.push(...await Promise.all([startServerProcess(() => undefined, { env }), startServerProcess(() => undefined, { env })]));
  });

  after(async () => {
    for (const server of servers) server.cleanup();
    if (redis !== undefined) {
      if (rateLimitKeys.length > 0) await redis.del(...rateLimitKeys).catch(() => undefined);
      redis.disconnect();
    }
    await database.drop();
  });

  it('accepts on one instance a token issued by the other', async () => {
    const [one, two] = servers.map((server) => server.baseUrl) as [string, string];
    const issued = await clientCredentials(one, machine);
    assert.equal(issued.status, 200);
    assert.equal(await apiStatus(two, issued.body.access_token!), 200);

    const browser = new Browser(two);
    await browser.signIn('scale@example.test');
    const tokens = await redeemCode(one, web, await browser.authorize(web.client_id));
    assert.equal(tokens.status, 200);
    assert.equal(await apiStatus(two, tokens.body.access_token!), 200);
    const refreshed = await refresh(two, web, tokens.body.refresh_token!);
    assert.equal(refreshed.status, 200);
    assert.equal(await apiStatus(one, refreshed.body.access_token!), 200);
    report('several-instances: cross-instance tokens', { issued_on: 'one', accepted_on: 'two', refreshed_across: true });
  });

  it(`gives exactly one success to ${CONCURRENT_REFRESHES} concurrent refreshes of one token over both instances`, { timeout: 60_000 }, async () => {
    const browser = new Browser(servers[0]!.baseUrl);
    await browser.signIn('scale@example.test');
    const tokens = await redeemCode(servers[0]!.baseUrl, web, await browser.authorize(web.client_id));
    const answers = await Promise.all(Array.from({ length: CONCURRENT_REFRESHES }, (_, i) => refresh(servers[i % 2]!.baseUrl, web, tokens.body.refresh_token!)));
    const statuses = answers.map(({ status }) => status);
    assert.deepEqual(countOf(statuses), { 200: 1, 400: CONCURRENT_REFRESHES - 1 });
    assert.ok(answers.filter(({ status }) => status === 400).every(({ body }) => body.error === 'invalid_grant'));
    // The race losers did not take the grant down: the winner's tokens live on.
    const winner = answers.find(({ status }) => status === 200)!;
    assert.equal(await apiStatus(servers[1]!.baseUrl, winner.body.access_token!), 200);
    assert.equal((await refresh(servers[1]!.baseUrl, web, winner.body.refresh_token!)).status, 200);
    report('several-instances: concurrent refresh', { refreshes: CONCURRENT_REFRESHES, per_instance: CONCURRENT_REFRESHES / 2, statuses: countOf(statuses) });
  });

  it('redeems a code once over both instances and revokes the tokens issued from it on the replay', { timeout: 60_000 }, async () => {
    const [one, two] = servers.map((server) => server.baseUrl) as [string, string];
    const browser = new Browser(one);
    await browser.signIn('scale@example.test');

    // One after the other: the second instance sees a replay and revokes what the first issued.
    const code = await browser.authorize(web.client_id);
    const first = await redeemCode(one, web, code);
    assert.equal(first.status, 200);
    const replay = await redeemCode(two, web, code);
    assert.deepEqual([replay.status, replay.body.error], [400, 'invalid_grant']);
    assert.deepEqual([await apiStatus(one, first.body.access_token!), await apiStatus(two, first.body.access_token!)], [401, 401]);
    assert.equal((await refresh(two, web, first.body.refresh_token!)).status, 400);

    // At the same moment: never two successes, and nothing issued survives.
    const outcomes: number[] = [];
    for (let race = 0; race < CODE_RACES; race++) {
      const raced = await browser.authorize(web.client_id);
      const answers = await Promise.all([redeemCode(one, web, raced), redeemCode(two, web, raced)]);
      const statuses = answers.map(({ status }) => status).sort();
      assert.ok(statuses[0] === 200 ? statuses[1] === 400 : statuses.every((status) => status === 400), `statuses ${statuses}`);
      outcomes.push(...statuses);
      for (const answer of answers.filter(({ status }) => status === 200)) {
        assert.deepEqual([await apiStatus(one, answer.body.access_token!), await apiStatus(two, answer.body.access_token!)], [401, 401]);
      }
    }
    report('several-instances: code redeemed on both', { sequential: '200 then 400, tokens revoked', races: CODE_RACES, statuses: countOf(outcomes) });
  });

  it('refuses a token revoked on one instance at once there, and on the other once its notice arrives (RFC 7009 §2.1)', async () => {
    const [one, two] = servers.map((server) => server.baseUrl) as [string, string];
    const token = (await clientCredentials(one, machine)).body.access_token!;
    const api = '/api/v2/portfolios.json';
    // Both have served it, so both answer it from memory (storage/cache/caching-stores.ts).
    assert.deepEqual([await apiStatus(one, token, api), await apiStatus(two, token, api)], [200, 200]);
    const revocation = await fetch(`${one}/oauth2/revoke`, { method: 'POST', body: new URLSearchParams({ token, ...machine }) });
    assert.equal(revocation.status, 200);
    const revokedAt = performance.now();
    assert.equal(await apiStatus(one, token, api), 401);
    let served = 0;
    while (await apiStatus(two, token, api) !== 401) {
      served++;
      if (performance.now() - revokedAt > 1000) assert.fail(`the other instance still served the revoked token after ${served} requests in a second`);
      await pause(5);
    }
    report('several-instances: revocation across instances', { seen_by_the_other_after_ms: Math.round(performance.now() - revokedAt), served_meanwhile: served });
  });

  it('shares one rate-limit count between the instances', async () => {
    const token = (await clientCredentials(servers[0]!.baseUrl, machine)).body.access_token!;
    const statuses: number[] = [];
    // Counting starts afresh for this key only if the earlier test's calls are within the window too.
    const before = Number(await redis!.get(rateLimitKeys[1]!) ?? 0);
    for (let i = 0; i < RATE_LIMIT + 10; i++) statuses.push(await apiStatus(servers[i % 2]!.baseUrl, token));
    assert.deepEqual(countOf(statuses), { 200: RATE_LIMIT - before, 429: 10 + before });
    report('several-instances: shared rate limit', { limit_per_minute: RATE_LIMIT, requests: statuses.length, earlier_in_window: before, statuses: countOf(statuses) });
  });
});
