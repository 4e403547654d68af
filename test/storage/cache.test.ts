// Reads from memory (src/storage/cache/): on SQLite never an answer that a change,
// made by this process or another, has outdated; on PostgreSQL never one this
// instance's own change has outdated, and another instance's only until its notice
// arrives. Each store method that changes a cached kind says so; nothing else moves it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { hashCredential } from '../../src/platform/secrets.ts';
import pg from 'pg';
import { CHANGES_CHANNEL } from '../../src/storage/cache/changes.ts';
import { VersionedCache } from '../../src/platform/versioned-cache.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openStorage, type OpenedStorage } from '../../src/storage/open.ts';
import { LISTENER_APPLICATION_NAME, NOTICES_TRUSTED_FOR_MS, PostgresChanges } from '../../src/storage/postgres/changes.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { openSqlite, SQLITE_MEMORY } from '../../src/storage/sqlite/sqlite-database.ts';
import type { Database } from '../../src/storage/schema.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { eventually, storageOnAFileFor, trusted, twoInstancesFor } from './memory-reads.ts';
import { postgresServerUrl, withoutPostgres } from './contract.ts';
import {
  accessTokenFor, auditEvent, createGrant, DAY, MINUTE, portfolioFields, rawToken, refreshTokenFor, revokeGrant, T0,
} from './fixtures.ts';
import type { Grant, IssuedTokens } from '../../src/domain/records.ts';

/**
 * A token issued alone (client_credentials), or beside a refresh token, to which
 * it is bound (migration 0010): the one revoked by its own row, the other by its
 * refresh token's. Both from the code `ORIGIN`, so an authorization's revocation takes them.
 */
const KINDS = ['alone', 'bound'] as const;
type Kind = (typeof KINDS)[number];
const ORIGIN = hashCredential('folio_ac_origin');

function issued(kind: Kind, grant: Grant, raw: string): IssuedTokens {
  const access = { ...accessTokenFor(grant, raw, T0), originCodeHash: ORIGIN };
  return kind === 'alone' ? { access } : { access, refresh: { ...refreshTokenFor(grant, rawToken('rt'), T0), originCodeHash: ORIGIN } };
}

/** What a bearer request finds (oauth/bearer.ts): the token recalled from memory, or else read. */
async function lookedUp(storage: OpenedStorage, hash: string) {
  return storage.tokens.recallAccessToken?.(hash) ?? await storage.tokens.findAccessToken(hash);
}

describe('VersionedCache', () => {
  let version = 0;
  let reads = 0;
  const read = async (key: string) => {
    reads++;
    return key === 'absent' ? undefined : `${key}@${version}`;
  };
  beforeEach(() => { version = 0; reads = 0; });

  it('answers from memory while the version stands, and reads afresh once it moves', async () => {
    const cache = new VersionedCache<string, string>(10, () => version);
    assert.equal(await cache.get('a', read), 'a@0');
    assert.equal(await cache.get('a', read), 'a@0');
    assert.equal(reads, 1);
    version++;
    assert.equal(await cache.get('a', read), 'a@1');
    assert.equal(reads, 2);
  });

  it('does not keep a value read while the version moved', async () => {
    const cache = new VersionedCache<string, string>(10, () => version);
    await cache.get('a', async (key) => {
      version++; // a write landed during the read
      return read(key);
    });
    await cache.get('a', read);
    assert.equal(reads, 2);
  });

  it('peeks only at what it holds at the current version, and never reads', async () => {
    const cache = new VersionedCache<string, string>(10, () => version);
    assert.equal(cache.peek('a'), undefined);
    await cache.get('a', read);
    assert.equal(cache.peek('a'), 'a@0');
    version++;
    assert.equal(cache.peek('a'), undefined);
    assert.equal(reads, 1);
  });

  it('remembers no absence, and holds at most its capacity, the oldest going first', async () => {
    const cache = new VersionedCache<string, string>(2, () => version);
    await cache.get('absent', read);
    await cache.get('absent', read);
    assert.equal(reads, 2);
    for (const key of ['a', 'b', 'c']) await cache.get(key, read);
    reads = 0;
    await cache.get('c', read);
    await cache.get('b', read);
    assert.equal(reads, 0);
    await cache.get('a', read);
    assert.equal(reads, 1);
  });
});

describe('VersionedCache: look-ups during a read', () => {
  it('lets look-ups of a key being read wait for that read, and keeps its value', async () => {
    const releases: ((value: string) => void)[] = [];
    const slowRead = () => new Promise<string>((resolve) => { releases.push(resolve); });
    const cache = new VersionedCache<string, string>(10, () => 0);
    const answers = [cache.get('a', slowRead), cache.get('a', slowRead), cache.get('a', slowRead)];
    assert.equal(releases.length, 1);
    for (const release of releases) release('a@0');
    assert.deepEqual(await Promise.all(answers), ['a@0', 'a@0', 'a@0']);
    assert.equal(await cache.get('a', slowRead), 'a@0');
    assert.equal(releases.length, 1);
  });

  it('gives a look-up after the version moved a read of its own, and keeps neither value read across the move', async () => {
    let version = 0;
    const releases: ((value: string) => void)[] = [];
    const slowRead = (key: string) => new Promise<string>((resolve) => { releases.push((value) => resolve(`${key}${value}`)); });
    const cache = new VersionedCache<string, string>(10, () => version);
    const before = cache.get('a', slowRead);
    version++; // a write, after the first look-up began
    const after = cache.get('a', slowRead);
    assert.equal(releases.length, 2);
    releases[0]!('@old');
    releases[1]!('@new');
    assert.equal(await before, 'a@old');
    assert.equal(await after, 'a@new');
    // The second read began at the current version and ended there: it is kept.
    assert.equal(await cache.get('a', slowRead), 'a@new');
    assert.equal(releases.length, 2);
  });

  it('passes a failed read to everyone waiting, and remembers nothing of it', async () => {
    let fail = true;
    const read = async (key: string) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (fail) throw new Error('database away');
      return key;
    };
    const cache = new VersionedCache<string, string>(10, () => 0);
    const outcomes = await Promise.allSettled([cache.get('a', read), cache.get('a', read)]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['rejected', 'rejected']);
    fail = false;
    assert.equal(await cache.get('a', read), 'a');
  });
});

describe('bearer reads from memory on a SQLite file', () => {
  const onAFile = storageOnAFileFor();
  let file: string;
  let storage: OpenedStorage;
  beforeEach(() => ({ file, storage } = onAFile));

  /** A live token, looked up once so that it is in memory. */
  async function cachedToken(kind: Kind = 'alone') {
    const fixture = await createGrant(storage);
    const raw = rawToken('at');
    const tokens = issued(kind, fixture.grant, raw);
    await storage.tokens.saveTokens(tokens);
    const hash = hashCredential(raw);
    assert.equal((await storage.tokens.findAccessToken(hash))?.revokedAt, null);
    return { ...fixture, hash, raw, tokens };
  }

  it('says its reads come from memory until it is closed', async () => {
    assert.equal(storage.readsFromMemory(), true);
    const another = await openStorage(file);
    await another.close();
    assert.equal(another.readsFromMemory(), false);
  });

  it('recalls a token from memory once read, and not after a write that may have changed it', async () => {
    const fixture = await createGrant(storage);
    const raw = rawToken('at');
    await storage.tokens.saveTokens({ access: accessTokenFor(fixture.grant, raw, T0) });
    const hash = hashCredential(raw);
    assert.equal(storage.tokens.recallAccessToken!(hash), undefined);
    await storage.tokens.findAccessToken(hash);
    assert.equal(storage.tokens.recallAccessToken!(hash)?.revokedAt, null);
    await storage.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked'));
    assert.equal(storage.tokens.recallAccessToken!(hash), undefined);
  });

  it('sees a token revoked through this storage at once (RFC 7009)', async () => {
    const { hash } = await cachedToken();
    assert.equal(await storage.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked')), true);
    assert.equal((await lookedUp(storage, hash))?.revokedAt, T0 + MINUTE);
  });

  for (const kind of KINDS) {
    it(`sees an application disconnected, an authorization revoked and an application deleted (a token issued ${kind})`, async () => {
      const disconnected = await cachedToken(kind);
      await revokeGrant(storage, disconnected.grant.id, T0 + MINUTE);
      assert.notEqual((await lookedUp(storage, disconnected.hash))?.revokedAt ?? null, null);

      const authorization = await cachedToken(kind);
      await storage.grants.revokeAuthorization(authorization.grant.id, ORIGIN, T0 + MINUTE, auditEvent('token.revoked'));
      assert.notEqual((await lookedUp(storage, authorization.hash))?.revokedAt ?? null, null);

      // A bound token ends with its refresh token, deleted by cascade: no statement names either.
      const deleted = await cachedToken(kind);
      assert.equal(await storage.applications.deleteApplication(deleted.application.id, deleted.application.ownerId, auditEvent('application.deleted')), true);
      assert.equal(await lookedUp(storage, deleted.hash), undefined);
    });
  }

  it("keeps a bound token in memory through its refresh token's rotation, which leaves it live", async () => {
    const { grant, hash, tokens } = await cachedToken('bound');
    const next = issued('bound', grant, rawToken('at'));
    assert.equal(await storage.tokens.rotateRefreshToken(tokens.refresh!.tokenHash, next, T0 + MINUTE), true);
    assert.equal(storage.tokens.recallAccessToken!(hash)?.revokedAt, null);
    assert.equal((await storage.tokens.findAccessToken(hash))?.revokedAt, null);
  });

  it('sees portfolios created, changed and deleted through this storage', async () => {
    const { user } = await createGrant(storage);
    assert.deepEqual(await storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    const created = await storage.portfolios.createPortfolio(user.id, portfolioFields({ name: 'Growth' }), T0);
    assert.deepEqual((await storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['Growth']);
    await storage.portfolios.updatePortfolio(created.id, user.id, portfolioFields({ name: 'Income' }), T0 + MINUTE);
    assert.deepEqual((await storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['Income']);
    await storage.portfolios.deletePortfolio(created.id, user.id);
    assert.deepEqual(await storage.portfolios.listPortfoliosOwnedBy(user.id), []);
  });

  it("sees another process's changes from the next turn of the event loop: a revocation and a new portfolio", async () => {
    const { hash, user } = await cachedToken();
    assert.deepEqual(await storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    // What `folio portfolio create`, or a second server on the same file, would do.
    const other = await openStorage(file);
    try {
      await other.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked'));
      await other.portfolios.createPortfolio(user.id, portfolioFields({ name: 'From the CLI' }), T0);
    } finally {
      await other.close();
    }
    // Another process's commit counts from the next turn of the event loop on
    // (sqlite/changes.ts); within the turn it happened in, a cached answer may stand.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await lookedUp(storage, hash))?.revokedAt, T0 + MINUTE);
    assert.deepEqual((await storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['From the CLI']);
  });

  it('hands out records no caller can change for the next one', async () => {
    const { hash, user } = await cachedToken();
    await storage.portfolios.createPortfolio(user.id, portfolioFields(), T0);
    const token = (await storage.tokens.findAccessToken(hash))!;
    assert.throws(() => { (token as { revokedAt: number | null }).revokedAt = 1; }, TypeError);
    assert.throws(() => { token.scope.push('write'); }, TypeError);
    const [portfolio] = await storage.portfolios.listPortfoliosOwnedBy(user.id);
    assert.throws(() => { portfolio!.name = 'changed'; }, TypeError);
    assert.equal((await storage.tokens.findAccessToken(hash))!.revokedAt, null);
  });
});

/**
 * Runs `use` with a connection of its own listening for change notices on the
 * database at `url`; `heardUpTo` resolves with the change notices heard so far. Notices arrive in commit order: once a mark sent afterwards is heard,
 * so is every notice before it. Marks look like another instance's proofs, which
 * instances ignore.
 */
async function listeningForNotices(url: string, use: (heardUpTo: (moment: string) => Promise<number>) => Promise<void>): Promise<void> {
  const listener = new pg.Client({ connectionString: url });
  const heard: string[] = [];
  listener.on('notification', (notice) => heard.push(notice.payload ?? ''));
  await listener.connect();
  try {
    await listener.query(`listen ${CHANGES_CHANNEL}`);
    await use(async (moment) => {
      const mark = `proof:test:${moment}`;
      await listener.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, mark]);
      await eventually(() => heard.includes(mark), 2000, mark);
      return heard.filter((payload) => !payload.startsWith('proof:')).length;
    });
  } finally {
    await listener.end();
  }
}

/** Ends every listening connection on `db`'s database, as a failover or a network cut would. */
async function terminateListeners(db: Kysely<Database>): Promise<void> {
  await sql`select pg_terminate_backend(pid) from pg_stat_activity
    where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(db);
}

describe('what moves the versions on SQLite', () => {
  const versionsOf = (database: ReturnType<typeof openSqlite>) => (['accessTokens', 'portfolios', 'applications'] as const).map((kind) => database.changes.version(kind));

  it('moves none for token issues, rotations, purges of dead rows and sign-in counters; a revocation moves the tokens\'', async () => {
    const database = openSqlite(SQLITE_MEMORY);
    const storage = createStorage(database);
    try {
      await storage.migrate();
      const { grant } = await createGrant(storage);
      const standing = versionsOf(database);
      const first = { access: accessTokenFor(grant, rawToken('at'), T0), refresh: refreshTokenFor(grant, rawToken('rt'), T0) };
      await storage.tokens.saveTokens(first);
      await storage.tokens.rotateRefreshToken(first.refresh.tokenHash, { access: accessTokenFor(grant, rawToken('at'), T0 + 1) }, T0 + 1);
      assert.equal((await storage.tokens.purgeExpired(T0 + DAY, T0 + DAY)).accessTokens, 2);
      const policy = { forgetAfterMs: DAY, lockoutMs: () => 0 };
      await storage.loginThrottle.countAttempt('account:stale@example.com', T0, policy);
      assert.equal(await storage.loginThrottle.forgetFailuresBefore(T0 + DAY), 1);
      assert.deepEqual(versionsOf(database), standing);
      const live = accessTokenFor(grant, rawToken('at'), T0 + DAY);
      await storage.tokens.saveTokens({ access: live });
      await storage.tokens.revokeAccessToken(live.tokenHash, T0 + DAY, auditEvent('token.revoked'));
      const [tokens, portfolios, applications] = versionsOf(database);
      assert.notEqual(tokens, standing[0]);
      assert.deepEqual([portfolios, applications], standing.slice(1));
    } finally {
      await storage.close();
    }
  });
});

describe('bearer reads from memory on PostgreSQL, with two instances', { skip: withoutPostgres }, () => {
  const instances = twoInstancesFor(postgresServerUrl);
  let one: OpenedStorage;
  let two: OpenedStorage;
  before(() => ({ one, two } = instances));

  /** A live token that instance one holds in memory, once its listener is up. */
  async function cachedToken(kind: Kind = 'alone') {
    const fixture = await createGrant(two);
    const raw = rawToken('at');
    const tokens = issued(kind, fixture.grant, raw);
    await two.tokens.saveTokens(tokens);
    const hash = hashCredential(raw);
    await eventually(() => trusted(() => instances.oneDatabase.changes.version('accessTokens')), 2000, 'instance one listens');
    assert.equal((await one.tokens.findAccessToken(hash))?.revokedAt, null);
    return { ...fixture, hash, tokens };
  }

  it('answers from memory: a change no store announces is not seen', async () => {
    const { hash } = await cachedToken();
    // Behind the stores' back, as only a database administrator can, from a third set of connections.
    const other = openPostgres(instances.database.url);
    try {
      await other.db.updateTable('access_tokens').set({ revoked_at: T0 + MINUTE }).where('token_hash', '=', hash).execute();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await one.tokens.findAccessToken(hash))?.revokedAt, null);
    } finally {
      await other.close();
    }
  });

  it('announces nothing for token issues, rotations and a purge of dead tokens, and a revocation once', async () => {
    await eventually(() => trusted(() => instances.oneDatabase.changes.version('accessTokens')), 2000, 'instance one listens');
    const { grant } = await createGrant(two);
    await listeningForNotices(instances.database.url, async (heardUpTo) => {
      const before = await heardUpTo('before');
      // Dead a day before every other test's tokens were made, so the purge takes only this one.
      await two.tokens.saveTokens({ access: accessTokenFor(grant, rawToken('at'), T0 - 2 * DAY) });
      const first = { access: accessTokenFor(grant, rawToken('at'), T0), refresh: refreshTokenFor(grant, rawToken('rt'), T0) };
      await two.tokens.saveTokens(first);
      await two.tokens.rotateRefreshToken(first.refresh.tokenHash, { access: accessTokenFor(grant, rawToken('at'), T0 + 1) }, T0 + 1);
      assert.equal((await one.tokens.purgeExpired(T0 - DAY, T0 - DAY)).accessTokens, 1);
      assert.equal(await heardUpTo('after the issues and the purge'), before);
      await two.tokens.revokeAccessToken(first.access.tokenHash, T0 + MINUTE, auditEvent('token.revoked'));
      assert.equal(await heardUpTo('after the revocation'), before + 1);
    });
  });

  it('sees a token revoked through this instance at once (RFC 7009)', async () => {
    const { hash } = await cachedToken();
    assert.equal(await one.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked')), true);
    assert.equal((await lookedUp(one, hash))?.revokedAt, T0 + MINUTE);
  });

  for (const kind of KINDS) {
    it(`sees the other instance's revocation, disconnection and application deletion once its notice arrives (a token issued ${kind})`, async () => {
      const revoked = await cachedToken(kind);
      await two.tokens.revokeAccessToken(revoked.hash, T0 + MINUTE, auditEvent('token.revoked'));
      await eventually(async () => (await lookedUp(one, revoked.hash))?.revokedAt === T0 + MINUTE, 1000, 'revocation seen');

      const disconnected = await cachedToken(kind);
      await revokeGrant(two, disconnected.grant.id, T0 + MINUTE);
      await eventually(async () => (await lookedUp(one, disconnected.hash))?.revokedAt === T0 + MINUTE, 1000, 'disconnection seen');

      const authorization = await cachedToken(kind);
      await two.grants.revokeAuthorization(authorization.grant.id, ORIGIN, T0 + MINUTE, auditEvent('token.revoked'));
      await eventually(async () => (await lookedUp(one, authorization.hash))?.revokedAt === T0 + MINUTE, 1000, 'authorization seen');

      // A bound token ends with its refresh token, deleted by cascade: no statement names either.
      const deleted = await cachedToken(kind);
      await two.applications.deleteApplication(deleted.application.id, deleted.application.ownerId, auditEvent('application.deleted'));
      await eventually(async () => (await lookedUp(one, deleted.hash)) === undefined, 1000, 'deletion seen');
    });
  }

  it("keeps a bound token in memory through a rotation by either instance, which announces nothing", async () => {
    const { grant, hash, tokens } = await cachedToken('bound');
    const { changes } = instances.oneDatabase;
    const bearer = changes.version('accessTokens');
    const next = issued('bound', grant, rawToken('at'));
    assert.equal(await one.tokens.rotateRefreshToken(tokens.refresh!.tokenHash, next, T0 + MINUTE), true);
    const last = issued('bound', grant, rawToken('at'));
    assert.equal(await two.tokens.rotateRefreshToken(next.refresh!.tokenHash, last, T0 + 2 * MINUTE), true);
    // A notice, were there one, would arrive well within this.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(changes.version('accessTokens'), bearer);
    assert.equal(one.tokens.recallAccessToken!(hash)?.revokedAt, null);
  });

  it("sees the other instance's portfolios created, changed and deleted once its notice arrives", async () => {
    const { user } = await cachedToken();
    const names = async () => (await one.portfolios.listPortfoliosOwnedBy(user.id)).map((portfolio) => portfolio.name).join();
    assert.equal(await names(), '');
    const created = await two.portfolios.createPortfolio(user.id, portfolioFields({ name: 'Growth' }), T0);
    await eventually(async () => await names() === 'Growth', 1000, 'creation seen');
    await two.portfolios.updatePortfolio(created.id, user.id, portfolioFields({ name: 'Income' }), T0 + MINUTE);
    await eventually(async () => await names() === 'Income', 1000, 'change seen');
    await two.portfolios.deletePortfolio(created.id, user.id);
    await eventually(async () => await names() === '', 1000, 'deletion seen');
  });

  it('keeps nothing while its listening connection is gone, and listens again', async () => {
    const { hash } = await cachedToken();
    const version = () => instances.oneDatabase.changes.version('accessTokens');
    assert.equal(one.readsFromMemory(), true);
    await terminateListeners(instances.oneDb);
    await eventually(() => !trusted(version), 1000, 'the lost connection noticed');
    assert.equal(one.readsFromMemory(), false); // what /metrics says as folio_reads_from_memory
    // Missed by instance one, whose listener is down: it reads from the database instead.
    await two.tokens.revokeAccessToken(hash, T0 + MINUTE, auditEvent('token.revoked'));
    assert.equal((await one.tokens.findAccessToken(hash))?.revokedAt, T0 + MINUTE);
    await eventually(() => trusted(version), 3000, 'listening again');
    assert.equal(one.readsFromMemory(), true);
  });
});

describe('PostgresChanges', { skip: withoutPostgres }, () => {
  const database = new TemporaryPostgresDatabase(postgresServerUrl ?? 'postgres://unused');
  before(async () => { await database.create(); });
  after(async () => { await database.drop(); });

  it('moves with every change notice, and trusts its connection only while its own proofs come back in time', async () => {
    let clock = 0;
    const heard: boolean[] = [];
    const changes = new PostgresChanges(database.url, (listening) => heard.push(listening), () => clock);
    try {
      assert.notEqual(changes.version('accessTokens'), changes.version('accessTokens')); // not listening yet
      assert.equal(changes.trusted(), false);
      await eventually(() => trusted(() => changes.version('accessTokens')), 2000, 'listening');
      assert.equal(changes.trusted(), true);
      assert.deepEqual(heard, [true]);

      // Another instance's proof is no change; its notice of a change is one, of the kinds it names.
      const before = changes.version('accessTokens');
      const portfolios = changes.version('portfolios');
      const other = openPostgres(database.url);
      try {
        await sql`select pg_notify(${CHANGES_CHANNEL}, 'proof:another-instance:1')`.execute(other.db);
        await sql`select pg_notify(${CHANGES_CHANNEL}, 'accessTokens')`.execute(other.db);
      } finally {
        await other.close();
      }
      await eventually(() => changes.version('accessTokens') !== before, 1000, 'the notice counted');
      assert.equal(changes.version('accessTokens'), before + 1);
      assert.equal(changes.version('portfolios'), portfolios);

      // No proof heard back for this long: a connection lost without a word.
      const standing = changes.version('accessTokens');
      clock += NOTICES_TRUSTED_FOR_MS;
      assert.equal(trusted(() => changes.version('accessTokens')), false);
      assert.equal(changes.trusted(), false);
      // The next proof (sent within 500 ms, real time) comes back, and trust returns with a new number.
      await eventually(() => trusted(() => changes.version('accessTokens')), 2000, 'trusted again');
      assert.notEqual(changes.version('accessTokens'), standing);
      // A lapse on the same connection is no loss; a terminated connection is, and its successor is heard.
      assert.deepEqual(heard, [true]);
      const admin = openPostgres(database.url);
      try {
        await terminateListeners(admin.db);
      } finally {
        await admin.close();
      }
      await eventually(() => heard.length === 3, 3000, 'the loss and the new connection reported');
      assert.deepEqual(heard, [true, false, true]);
    } finally {
      await changes.stop();
    }
    assert.equal(trusted(() => changes.version('accessTokens')), false);
  });
});
