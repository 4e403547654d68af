// What the benchmark needs in a database, written through Folio's own stores
// where the count is small and in bulk SQL where it is large (a million tokens).
import { writeFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { seedDemo } from '../src/demo/seed.ts';
import { lifetimes } from '../src/oauth/lifetimes.ts';
import { systemClock } from '../src/platform/clock.ts';
import { cryptoRandom } from '../src/platform/random.ts';
import { generateCredential, hashCredential } from '../src/platform/secrets.ts';
import type { OpenDatabase } from '../src/storage/database.ts';
import { deleteInBatches } from '../src/storage/kysely/purge.ts';
import { createStorage } from '../src/storage/kysely/storage.ts';
import type { OpenedStorage } from '../src/storage/open.ts';
import type { OwnedApplication } from '../src/domain/records.ts';
import { openPostgres } from '../src/storage/postgres/postgres-database.ts';
import { openSqlite } from '../src/storage/sqlite/sqlite-database.ts';
import type { Database, StorageKind } from '../src/storage/schema.ts';

export const REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

/** One refresh chain and one code owner per load connection. */
const CHAIN_USERS = 50;
const BEARER_TOKENS = 100;
const INSERT_CHUNK = 500;
const DEAD_TOKEN_CHUNK = 20_000;
const HOUR = 60 * 60 * 1000;

export interface Fixtures {
  clientId: string;
  clientSecret: string;
  /** Access tokens of the demo user, who owns the demo portfolios. */
  bearerTokens: string[];
  /** One more, bound to the MCP endpoint (RFC 8707), which accepts no other. */
  mcpBearer: string;
}

export class BenchDatabase {
  readonly storage: OpenedStorage;
  private chainGrants: { grantId: number; userId: number }[] = [];
  private applicationId = 0;

  readonly db: Kysely<Database>;
  readonly kind: StorageKind;

  private constructor(private readonly database: OpenDatabase, readonly url: string) {
    this.db = database.db;
    this.kind = database.kind;
    this.storage = createStorage(database);
  }

  static open(url: string): BenchDatabase {
    // Seeding a million rows takes longer than the server's per-query bound.
    return new BenchDatabase(url.startsWith('postgres') ? openPostgres(url, { queryTimeout: false }) : openSqlite(url), url);
  }

  /** Migrates, adds the demo user, applications and portfolios, and the load's users and tokens. */
  /** `mcpResource`: the server's `{base_url}/mcp`, which its MCP token is bound to. */
  async prepare(mcpResource: string): Promise<Fixtures> {
    const { storage } = this;
    await storage.migrate();
    const demo = await seedDemo({ storage, clock: systemClock, random: cryptoRandom });
    const confidential = demo.applications.find((application) => application.confidential)!;
    const application = (await storage.applications.findApplicationByClientId(confidential.clientId)) as OwnedApplication;
    this.applicationId = application.id;
    const now = systemClock.now();
    for (let index = 0; index < CHAIN_USERS; index++) {
      const user = await storage.users.createUser({ email: `bench-${index}@folio.test`, name: `Bench ${index}`, passwordHash: 'unused', now }, (created) => ({
        type: 'user.created', userId: created.id, applicationId: null, ip: null, detail: {}, createdAt: now,
      }));
      const grant = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], now);
      this.chainGrants.push({ grantId: grant.id, userId: user.id });
    }
    const demoGrant = await storage.grants.findOrCreateActiveGrant(application.ownerId, application.id, ['read'], now);
    const mintBearer = async (resource: string | null) => {
      const token = generateCredential('accessToken', cryptoRandom, now);
      await storage.tokens.saveTokens({ access: {
        tokenHash: hashCredential(token), grantId: demoGrant.id, applicationId: application.id,
        userId: application.ownerId, scope: ['read'], createdAt: now, expiresAt: now + lifetimes.accessToken, revokedAt: null,
        originCodeHash: null, resource,
      } });
      return token;
    };
    const bearerTokens: string[] = [];
    for (let index = 0; index < BEARER_TOKENS; index++) bearerTokens.push(await mintBearer(null));
    const mcpBearer = await mintBearer(mcpResource);
    await this.refreshStatistics();
    return { clientId: confidential.clientId, clientSecret: confidential.clientSecret!, bearerTokens, mcpBearer };
  }

  /**
   * PostgreSQL: statistics for every table, as autovacuum would keep them in
   * production (a test server may run without it): a connection's generic plans are
   * made from the statistics of the moment, and plans made from none go wrong as the
   * tables grow under load.
   */
  private async refreshStatistics(): Promise<void> {
    if (this.kind === 'postgres') await sql`analyze`.execute(this.db);
  }

  /** Adds live access tokens nobody holds, generated inside the database. */
  async addLiveTokens(count: number): Promise<void> {
    const now = systemClock.now();
    await this.generateTokens(count, now, now + lifetimes.accessToken);
    if (this.kind === 'postgres') {
      // What autovacuum would otherwise start in the middle of the measurement (a million
      // fresh rows pass its insert threshold): vacuum, statistics, and the dirty pages flushed.
      await sql`vacuum (analyze) access_tokens`.execute(this.db);
      await sql`checkpoint`.execute(this.db).catch(() => undefined); // needs a superuser or pg_checkpoint
    }
  }

  /**
   * Adds access tokens that expired two hours ago, past the hour the purge keeps
   * dead credentials, for the running server's purge to delete. On SQLite written in
   * chunks, since the server's purge waits for the write lock meanwhile; on PostgreSQL
   * in one transaction, since there the purge does not wait but would delete the
   * chunks as fast as they came, leaving too few for the measurement.
   */
  async addDeadTokens(count: number): Promise<void> {
    const expired = systemClock.now() - 2 * HOUR;
    const addChunks = async (db: Kysely<Database>) => {
      for (let done = 0; done < count; done += DEAD_TOKEN_CHUNK) {
        await this.generateTokens(Math.min(DEAD_TOKEN_CHUNK, count - done), expired - lifetimes.accessToken, expired, db);
      }
    };
    if (this.kind === 'sqlite') {
      await addChunks(this.db);
    } else {
      await this.db.transaction().execute(addChunks);
      await sql`analyze access_tokens`.execute(this.db);
    }
  }

  /** Access tokens the purge would delete now. */
  async deadTokenCount(): Promise<number> {
    const row = await this.db.selectFrom('access_tokens').where('expires_at', '<', systemClock.now() - HOUR)
      .select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Deletes what the purge has not yet, so the scenarios after the purge scenario run
   * without one. Beside the server's purge, skipping the rows it holds as it skips ours.
   */
  async deleteDeadTokens(): Promise<void> {
    const olderThan = systemClock.now() - HOUR;
    await deleteInBatches(this.database, async () => {}, 'access_tokens', 'token_hash', (limit) => this.db.selectFrom('access_tokens')
      .where('expires_at', '<', olderThan).limit(limit));
  }

  private async generateTokens(count: number, createdAt: number, expiresAt: number, db: Kysely<Database> = this.db): Promise<void> {
    const { grantId, userId } = this.chainGrants[0]!;
    const values = sql`${grantId}, ${this.applicationId}, ${userId}, 'read', ${createdAt}, ${expiresAt}`;
    const columns = sql`(token_hash, grant_id, application_id, user_id, scope, created_at, expires_at)`;
    // Stored forms as hashCredential makes them: the issue time in 12 hex digits, then 64 random ones.
    if (this.kind === 'sqlite') {
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
        insert into access_tokens ${columns} select printf('%012x', ${createdAt}) || lower(hex(randomblob(32))), ${values} from n`.execute(db);
    } else {
      await sql`insert into access_tokens ${columns}
        select lpad(to_hex(${createdAt}::bigint), 12, '0') || md5(random()::text || i::text) || md5(i::text || random()::text), ${values}
        from generate_series(1, ${count}::int) as i`.execute(db);
    }
  }

  async liveTokenCount(): Promise<number> {
    const row = await this.db.selectFrom('access_tokens').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** One fresh refresh token per chain user (each load connection rotates its own). */
  async mintRefreshTokens(): Promise<string[]> {
    const now = systemClock.now();
    const tokens: string[] = [];
    for (const { grantId, userId } of this.chainGrants) {
      const access = generateCredential('accessToken', cryptoRandom, now);
      const refresh = generateCredential('refreshToken', cryptoRandom, now);
      const subject = { grantId, applicationId: this.applicationId, userId, scope: ['read'], createdAt: now, revokedAt: null, originCodeHash: null, resource: null };
      await this.storage.tokens.saveTokens({
        access: { ...subject, tokenHash: hashCredential(access), expiresAt: now + lifetimes.accessToken },
        refresh: { ...subject, tokenHash: hashCredential(refresh), expiresAt: now + lifetimes.refreshTokenIdle, rotatedAt: null },
      });
      tokens.push(refresh);
    }
    await this.refreshStatistics();
    return tokens;
  }

  /** `count` unused authorization codes spread over the chain users, written to `file` one a line. */
  async seedCodes(count: number, file: string): Promise<void> {
    const now = systemClock.now();
    const codes: string[] = [];
    const rows: Database['authorization_codes'][] = [];
    for (let index = 0; index < count; index++) {
      const code = generateCredential('authorizationCode', cryptoRandom, now);
      const { grantId, userId } = this.chainGrants[index % this.chainGrants.length]!;
      codes.push(code);
      rows.push({
        code_hash: hashCredential(code), grant_id: grantId, application_id: this.applicationId, user_id: userId,
        redirect_uri: REDIRECT_URI, scope: 'read', code_challenge: null,
        created_at: now, expires_at: now + lifetimes.authorizationCode, consumed_at: null, resource: null,
      });
    }
    await this.db.transaction().execute(async (trx) => {
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        await trx.insertInto('authorization_codes').values(rows.slice(start, start + INSERT_CHUNK)).execute();
      }
    });
    await this.refreshStatistics();
    writeFileSync(file, `${codes.join('\n')}\n`);
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}
