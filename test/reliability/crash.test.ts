// kill -9 under load (issue #7): every token a client was answered 200 for is in
// the database after the crash and works once the server is back, or was rotated
// by that same client, and no transaction is half there; a SQLite file passes
// integrity_check. Token writes go in batched transactions on both databases
// (docs/architecture.md): a client is answered only after the commit holding its tokens. FOLIO_CRASH_LOAD_MS lengthens the load.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { hashCredential } from '../../src/platform/secrets.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import type { Database } from '../../src/storage/schema.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import {
  Browser, PASSWORD, REDIRECT_URI, type RegisteredClient, TemporaryPostgresDatabase, apiStatus, clientCredentials, pause, redeemCode, refresh, report,
} from './support.ts';
import { postgresServerUrl, withoutPostgres } from '../support/services.ts';

const LOAD_MS = Number(process.env.FOLIO_CRASH_LOAD_MS ?? 1500);
const CHAINS = 6;
const CLIENT_CREDENTIALS_WORKERS = 4;

interface Chain {
  /** The newest refresh token this client was answered 200 for. */
  latest: string;
  /** Refresh tokens this client rotated (it holds their successors). */
  rotated: string[];
  /** A refresh was in flight when the server died: its answer never came. */
  inDoubt: boolean;
}

for (const backend of ['SQLite', 'PostgreSQL'] as const) {
  const skip = backend === 'PostgreSQL' ? withoutPostgres : false;
  describe(`kill -9 under a load of token issues and refreshes [${backend}]`, { skip }, () => {
    let server: ServerProcess;
    let client: RegisteredClient;
    const postgres = backend === 'PostgreSQL' && !skip ? new TemporaryPostgresDatabase(postgresServerUrl!) : undefined;
    let databaseEnv: Record<string, string> = {};

    before(async () => {
      if (postgres !== undefined) databaseEnv = { FOLIO_DATABASE_URL: await postgres.create() };
      server = await startServerProcess((folio) => {
        folio('migrate');
        folio('user', 'create', '--email', 'crash@example.test', '--password', PASSWORD);
        client = JSON.parse(folio('app', 'create', '--owner', 'crash@example.test', '--name', 'Crash', '--redirect-uri', REDIRECT_URI, '--json'));
      }, { env: { FOLIO_RATE_LIMIT_PER_MINUTE: '1000000', ...databaseEnv } });
    });
    after(async () => {
      server?.cleanup();
      await postgres?.drop();
    });

    /** The database as the dead server left it. */
    function openLeftDatabase(): Kysely<Database> {
      return databaseEnv.FOLIO_DATABASE_URL === undefined
        ? openSqlite(join(server.directory, 'folio.db')).db
        : openPostgres(databaseEnv.FOLIO_DATABASE_URL).db;
    }

    it('loses no token a client was answered 200 for and leaves no transaction half there', { timeout: 120_000 }, async () => {
      const { baseUrl } = server;
      const browser = new Browser(baseUrl);
      await browser.signIn('crash@example.test');
      const chains: Chain[] = [];
      const accessTokens: string[] = [];
      for (let i = 0; i < CHAINS; i++) {
        const answer = await redeemCode(baseUrl, client, await browser.authorize(client.client_id));
        assert.equal(answer.status, 200);
        accessTokens.push(answer.body.access_token!);
        chains.push({ latest: answer.body.refresh_token!, rotated: [], inDoubt: false });
      }

      let dead = false;
      let sent = 0;
      let inFlightAtKill = 0;
      let inFlight = 0;
      const other: Record<string, number> = {};
      const tracked = async <T>(request: () => Promise<T>): Promise<T | undefined> => {
        sent++;
        inFlight++;
        try {
          return await request();
        } catch {
          return undefined; // the connection died with the server
        } finally {
          inFlight--;
        }
      };
      const issuing = Array.from({ length: CLIENT_CREDENTIALS_WORKERS }, async () => {
        while (!dead) {
          const answer = await tracked(() => clientCredentials(baseUrl, client));
          if (answer === undefined) return;
          if (answer.status === 200) accessTokens.push(answer.body.access_token!);
          else other[answer.status] = (other[answer.status] ?? 0) + 1;
        }
      });
      const refreshing = chains.map(async (chain) => {
        while (!dead) {
          const answer = await tracked(() => refresh(baseUrl, client, chain.latest));
          if (answer === undefined) {
            chain.inDoubt = true;
            return;
          }
          if (answer.status !== 200) {
            other[answer.status] = (other[answer.status] ?? 0) + 1;
            continue;
          }
          chain.rotated.push(chain.latest);
          chain.latest = answer.body.refresh_token!;
          accessTokens.push(answer.body.access_token!);
        }
      });

      await pause(LOAD_MS * (0.6 + Math.random() * 0.4));
      inFlightAtKill = inFlight;
      server.child.kill('SIGKILL');
      await new Promise((resolve) => server.child.once('exit', resolve));
      dead = true;
      await Promise.all([...issuing, ...refreshing]);
      assert.deepEqual(other, {}, 'every answer before the kill was a 200');

      // The server is dead: read the database as it was left.
      if (backend === 'SQLite') {
        const file = new SqliteDatabase(join(server.directory, 'folio.db'), { readonly: true });
        try {
          assert.equal(file.pragma('integrity_check', { simple: true }), 'ok');
          assert.deepEqual(file.pragma('foreign_key_check'), []);
        } finally {
          file.close();
        }
      }
      const db = openLeftDatabase();
      let refreshTokensChecked = 0;
      try {
        const hashes = accessTokens.map((token) => hashCredential(token));
        for (let i = 0; i < hashes.length; i += 500) {
          const chunk = hashes.slice(i, i + 500);
          const rows = await db.selectFrom('access_tokens').select(['token_hash', 'revoked_at']).where('token_hash', 'in', chunk).execute();
          assert.equal(rows.length, chunk.length, 'every access token answered 200 is stored');
          assert.deepEqual(rows.filter((row) => row.revoked_at !== null), [], 'and unrevoked');
        }
        const refreshRow = (token: string) => db.selectFrom('refresh_tokens').select(['rotated_at', 'revoked_at'])
          .where('token_hash', '=', hashCredential(token)).executeTakeFirst();
        for (const chain of chains) {
          for (const old of chain.rotated) {
            assert.ok((await refreshRow(old))?.rotated_at != null, 'a rotated refresh token is marked rotated');
            refreshTokensChecked++;
          }
          const latest = await refreshRow(chain.latest);
          assert.ok(latest !== undefined && latest.revoked_at === null, 'the newest refresh token is stored, unrevoked');
          if (!chain.inDoubt) assert.equal(latest.rotated_at, null, 'nobody else rotated it');
          refreshTokensChecked++;
        }
        // Half-written transactions: a refresh token without the access token issued
        // beside it, or a rotated refresh token without its successor (minted a moment
        // before the rotation's own timestamp is taken, so within a second of it).
        const count = async (query: ReturnType<typeof sql<{ n: number | string }>>) => Number((await query.execute(db)).rows[0]!.n);
        assert.equal(await count(sql`select count(*) as n from refresh_tokens r where not exists
          (select 1 from access_tokens a where a.grant_id = r.grant_id and a.created_at = r.created_at)`), 0);
        assert.equal(await count(sql`select count(*) as n from refresh_tokens r where r.rotated_at is not null and not exists
          (select 1 from refresh_tokens s where s.grant_id = r.grant_id and s.token_hash <> r.token_hash
            and s.created_at between r.rotated_at and r.rotated_at + 1000)`), 0);
        // Each chain has exactly one refresh token that is not rotated: its head.
        assert.equal(await count(sql`select count(*) as n from refresh_tokens where rotated_at is null`), CHAINS);
      } finally {
        await db.destroy();
      }

      await server.restart();
      let accessChecked = 0;
      for (let i = 0; i < accessTokens.length; i += 16) {
        const statuses = await Promise.all(accessTokens.slice(i, i + 16).map((token) => apiStatus(baseUrl, token)));
        assert.deepEqual(statuses.filter((status) => status !== 200), []);
        accessChecked += statuses.length;
      }
      let chainsContinued = 0;
      let chainsRotatedByLostAnswer = 0;
      for (const chain of chains) {
        const answer = await refresh(baseUrl, client, chain.latest);
        if (answer.status === 200) chainsContinued++;
        else {
          // Only a refresh whose answer died with the server may have used it up.
          assert.ok(chain.inDoubt, `chain refresh answered ${answer.status} ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.error, 'invalid_grant');
          chainsRotatedByLostAnswer++;
        }
      }
      assert.equal(await server.stop(), 0);
      report(`crash [${backend}]`, {
        requests_sent: sent, in_flight_at_kill: inFlightAtKill, access_tokens_checked: accessChecked,
        refresh_tokens_checked: refreshTokensChecked, rotations: chains.reduce((n, chain) => n + chain.rotated.length, 0),
        chains_continued: chainsContinued, chains_rotated_by_lost_answer: chainsRotatedByLostAnswer,
        ...(backend === 'SQLite' ? { integrity_check: 'ok' } : {}),
      });
    });
  });
}
