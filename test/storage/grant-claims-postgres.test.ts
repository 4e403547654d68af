// On PostgreSQL a token issue claims its grant with a shared lock (token-issue-postgres.ts):
// issues on one grant do not wait for each other's commits, a revocation waits for them,
// and the grant's last use is written at most once a second.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Kysely, sql } from 'kysely';
import { createPostgresKysely } from '../../src/storage/dialects.ts';
import { createKyselyStorage } from '../../src/storage/kysely/storage.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import type { Database } from '../../src/storage/schema.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl } from './contract.ts';
import { T0, accessTokenFor, createGrant, revokeGrant } from './fixtures.ts';

const skip = postgresServerUrl === undefined ? 'FOLIO_TEST_POSTGRES_URL is not set' : false;

/** `promise`'s outcome if it settles within `ms`, else 'waiting'. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'waiting'> {
  return Promise.race([promise, new Promise<'waiting'>((resolve) => { setTimeout(() => resolve('waiting'), ms); })]);
}

describe('grant claims on PostgreSQL', { skip }, () => {
  const database = skip ? undefined : new TemporaryPostgresDatabase(postgresServerUrl!);
  let url: string;
  let storage: OpenedStorage;
  let db: Kysely<Database>;
  let other: Kysely<Database>;

  before(async () => {
    url = await database!.create();
    db = createPostgresKysely(url);
    storage = createKyselyStorage(db, 'postgres');
    await storage.migrate();
    other = createPostgresKysely(url);
  });
  after(async () => {
    await other?.destroy();
    await storage?.close();
    await database?.drop();
  });

  /** Runs `work` while another transaction holds the lock an uncommitted issue holds on the grant. */
  async function whileAnIssueIsUncommitted<T>(grantId: number, work: () => Promise<T>): Promise<T> {
    return other.transaction().execute(async (trx) => {
      await sql`select id from grants where id = ${grantId} for share`.execute(trx);
      return work();
    });
  }

  it('lets an issue on a grant go ahead while another issue on it is uncommitted', async () => {
    const { grant } = await createGrant(storage);
    assert.equal(await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0) }), true);
    const outcome = await whileAnIssueIsUncommitted(grant.id, () => within(storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 500) }), 2000));
    assert.equal(outcome, true);
  });

  it('makes a revocation of the grant wait until the uncommitted issue is done, so it revokes that issue\'s tokens', async () => {
    const { grant } = await createGrant(storage);
    let revocation: Promise<unknown> | undefined;
    await whileAnIssueIsUncommitted(grant.id, async () => {
      revocation = revokeGrant(storage, grant.id, T0 + 1000);
      assert.equal(await within(revocation, 300), 'waiting');
    });
    await revocation;
    assert.equal((await storage.grants.findGrant(grant.id))?.revokedAt, T0 + 1000);
  });

  it('writes the grant\'s last use when it is a second old, not on every issue', async () => {
    const { grant } = await createGrant(storage);
    const lastUse = async () => (await storage.grants.findGrant(grant.id))?.lastUsedAt;
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0) });
    assert.equal(await lastUse(), T0);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 999) });
    assert.equal(await lastUse(), T0);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 1000) });
    assert.equal(await lastUse(), T0 + 1000);
  });

  it('settles fifty concurrent issues across the moment the last use is written, without deadlock', async () => {
    const { grant } = await createGrant(storage);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0) });
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, index) => storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 990 + index) })));
    assert.deepEqual(new Set(outcomes), new Set([true]));
    const issued = await db.selectFrom('access_tokens').select((eb) => eb.fn.countAll<string>().as('count')).where('grant_id', '=', grant.id).executeTakeFirstOrThrow();
    assert.equal(Number(issued.count), 51);
  });
});
