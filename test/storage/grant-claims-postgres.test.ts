// On PostgreSQL a token write holds its grant with a shared lock (token-writes.ts):
// writes on one grant do not wait for each other's commits and a revocation waits for
// them (the last use written at most once a second is tokens.test.ts's). Writes that
// arrive together go in batches, one transaction for many, each write standing or
// falling on its own credential and grant.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Kysely, sql } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import type { AuthorizationCode, Grant, IssuedTokens } from '../../src/domain/records.ts';
import type { Database } from '../../src/storage/schema.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl, withoutPostgres } from './contract.ts';
import { MINUTE, T0, accessTokenFor, auditEvent, codeFor, createGrant, createUser, revokeGrant, tokenPairFor } from './fixtures.ts';

const skip = withoutPostgres;

/** `promise`'s outcome if it settles within `ms`, else 'waiting'. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'waiting'> {
  return Promise.race([promise, new Promise<'waiting'>((resolve) => { setTimeout(() => resolve('waiting'), ms); })]);
}

describe('grant claims on PostgreSQL', { skip }, () => {
  const database = skip ? undefined : new TemporaryPostgresDatabase(postgresServerUrl!);
  let url: string;
  let storage: OpenedStorage;
  let db: Kysely<Database>;
  let otherDatabase: OpenDatabase;
  let other: Kysely<Database>;

  before(async () => {
    url = await database!.create();
    const opened = openPostgres(url);
    db = opened.db;
    storage = createStorage(opened);
    await storage.migrate();
    otherDatabase = openPostgres(url);
    other = otherDatabase.db;
  });
  after(async () => {
    await otherDatabase?.close();
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

  it('settles fifty concurrent issues across the moment the last use is written, without deadlock', async () => {
    const { grant } = await createGrant(storage);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0) });
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, index) => storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, T0 + 990 + index) })));
    assert.deepEqual(new Set(outcomes), new Set([true]));
    const issued = await db.selectFrom('access_tokens').select((eb) => eb.fn.countAll<string>().as('count')).where('grant_id', '=', grant.id).executeTakeFirstOrThrow();
    assert.equal(Number(issued.count), 51);
  });

  // Writes that arrive while a batch is under way go together in the next (batches.ts):
  // one transaction for all of them.
  /** The transaction that wrote each access token, or undefined where none was written. */
  async function writtenBy(tokens: readonly IssuedTokens[]): Promise<(string | undefined)[]> {
    const hashes = tokens.map((issued) => issued.access.tokenHash);
    const rows = await sql<{ token_hash: string; xid: string }>`
      select token_hash, xmin::text as xid from access_tokens where token_hash = any(${hashes}::text[])`.execute(db);
    const byHash = new Map(rows.rows.map((row) => [row.token_hash, row.xid]));
    return hashes.map((hash) => byHash.get(hash));
  }

  /** Issued tokens whose audit event names them, so each issue's event can be found. */
  function issueWithEvent(grant: Grant, label: string): IssuedTokens {
    return { ...tokenPairFor(grant, T0 + MINUTE), event: auditEvent('token.issued', T0 + MINUTE, { label }) };
  }

  async function eventLabels(): Promise<string[]> {
    const rows = await db.selectFrom('audit_events').select('detail').where('type', '=', 'token.issued').execute();
    return rows.map((row) => (JSON.parse(row.detail) as { label: string }).label).sort();
  }

  it('commits the issues that arrive together, and those that arrive while they are written, each in one transaction', async () => {
    const { grant } = await createGrant(storage);
    const together = Array.from({ length: 3 }, () => ({ access: accessTokenFor(grant) }));
    const first = Promise.all(together.map((issue) => storage.tokens.saveTokens(issue)));
    await new Promise((resolve) => setImmediate(resolve));
    const meanwhile = Array.from({ length: 3 }, () => ({ access: accessTokenFor(grant) }));
    const outcomes = [...await first, ...await Promise.all(meanwhile.map((issue) => storage.tokens.saveTokens(issue)))];
    assert.deepEqual(outcomes, [true, true, true, true, true, true]);
    const [firstWritten, laterWritten] = [await writtenBy(together), await writtenBy(meanwhile)];
    assert.equal(new Set(firstWritten).size, 1, 'the three that arrived together share one transaction');
    assert.equal(new Set(laterWritten).size, 1, 'and so do the three that waited');
    assert.notEqual(laterWritten[0], firstWritten[0]);
  });

  it('writes every refresh token and audit event of a batch, each issue\'s own', async () => {
    const { grant } = await createGrant(storage);
    const labels = ['a', 'b', 'c', 'd'];
    const issues = labels.map((label) => issueWithEvent(grant, label));
    assert.deepEqual(await Promise.all(issues.map((issue) => storage.tokens.saveTokens(issue))), [true, true, true, true]);
    const written = await writtenBy(issues);
    assert.equal(new Set(written.slice(1)).size, 1, 'the three that waited share one transaction');
    for (const issue of issues) {
      assert.deepEqual(await storage.tokens.findAccessToken(issue.access.tokenHash), issue.access);
      assert.deepEqual(await storage.tokens.findRefreshToken(issue.refresh!.tokenHash), issue.refresh);
    }
    assert.deepEqual(await eventLabels(), labels);
  });

  it('writes the grant\'s last use once for a batch, at its latest issue', async () => {
    const { grant } = await createGrant(storage);
    const times = [T0 + 2 * MINUTE, T0 + 2 * MINUTE + 40, T0 + 2 * MINUTE + 1500, T0 + 2 * MINUTE + 20];
    await Promise.all(times.map((time) => storage.tokens.saveTokens({ access: accessTokenFor(grant, undefined, time) })));
    assert.equal((await storage.grants.findGrant(grant.id))?.lastUsedAt, T0 + 2 * MINUTE + 1500);
  });

  it('writes nothing of a batch whose grant was revoked', async () => {
    const { grant } = await createGrant(storage);
    await revokeGrant(storage, grant.id, T0 + 1);
    const issues = Array.from({ length: 4 }, () => ({ access: accessTokenFor(grant) }));
    assert.deepEqual(await Promise.all(issues.map((issue) => storage.tokens.saveTokens(issue))), [false, false, false, false]);
    assert.deepEqual(await writtenBy(issues), [undefined, undefined, undefined, undefined]);
  });

  // Rotations and code exchanges go in the same batches, whatever their grants.
  it('rotates each refresh token of a batch on its own: a spent one among them gets nothing written', async () => {
    const grants = await Promise.all([createGrant(storage), createGrant(storage), createGrant(storage)]);
    const [first, spent, ...fresh] = await Promise.all([0, 1, 1, 2].map(async (which) => {
      const pair = tokenPairFor(grants[which]!.grant);
      assert.equal(await storage.tokens.saveTokens(pair), true);
      return pair;
    }));
    assert.equal(await storage.tokens.rotateRefreshToken(spent!.refresh!.tokenHash, tokenPairFor(grants[1]!.grant), T0 + 1), true);

    const chains = [first!, spent!, ...fresh];
    const labels = ['rotation-first', 'rotation-spent', 'rotation-fresh-1', 'rotation-fresh-2'];
    const next = chains.map((chain, index) => ({ ...issueWithEvent(chainGrant(chain), labels[index]!) }));
    const outcomes = await Promise.all(chains.map((chain, index) =>
      storage.tokens.rotateRefreshToken(chain.refresh!.tokenHash, next[index]!, T0 + MINUTE)));

    assert.deepEqual(outcomes, [true, false, true, true]);
    const written = await writtenBy(next);
    assert.equal(written[1], undefined, 'nothing issued for the spent token');
    assert.equal(written[2], written[3], 'the two that waited, on two grants, shared a transaction');
    assert.equal(await storage.tokens.findRefreshToken(next[1]!.refresh!.tokenHash), undefined);
    for (const index of [0, 2, 3]) assert.notEqual(await storage.tokens.findRefreshToken(next[index]!.refresh!.tokenHash), undefined);
    assert.deepEqual((await eventLabels()).filter((label) => label.startsWith('rotation')), ['rotation-first', 'rotation-fresh-1', 'rotation-fresh-2']);
    for (const chain of [first!, ...fresh]) assert.equal((await storage.tokens.findRefreshToken(chain.refresh!.tokenHash))?.rotatedAt, T0 + MINUTE);
  });

  it('lets one of two rotations of one refresh token win, though both waited for the same statement', async () => {
    const { grant } = await createGrant(storage);
    const pair = tokenPairFor(grant);
    const blocker = tokenPairFor(grant);
    await storage.tokens.saveTokens(pair);
    await storage.tokens.saveTokens(blocker);
    const contenders = [tokenPairFor(grant, T0 + MINUTE), tokenPairFor(grant, T0 + MINUTE)];
    const outcomes = await Promise.all([
      storage.tokens.rotateRefreshToken(blocker.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE),
      ...contenders.map((next) => storage.tokens.rotateRefreshToken(pair.refresh!.tokenHash, next, T0 + MINUTE)),
    ]);
    assert.equal(outcomes[0], true);
    assert.deepEqual(outcomes.slice(1).sort(), [false, true]);
    assert.equal((await writtenBy(contenders)).filter((xid) => xid !== undefined).length, 1);
  });

  it('lets one rotation of a refresh token win when two instances batch it with others at once', async () => {
    const otherInstance = createStorage(otherDatabase);
    const { grant } = await createGrant(storage);
    const contested = tokenPairFor(grant);
    const bystanders = Array.from({ length: 6 }, () => tokenPairFor(grant));
    for (const pair of [contested, ...bystanders]) await storage.tokens.saveTokens(pair);
    const rotate = (instance: OpenedStorage, pair: IssuedTokens) =>
      instance.tokens.rotateRefreshToken(pair.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE);
    const attempts = [storage, otherInstance].flatMap((instance, index) => [
      ...bystanders.slice(index * 3, index * 3 + 3).map((pair) => rotate(instance, pair)),
      ...Array.from({ length: 5 }, () => rotate(instance, contested)),
    ]);
    const outcomes = await Promise.all(attempts);
    const contestedOutcomes = outcomes.filter((_, index) => index % 8 >= 3);
    assert.equal(contestedOutcomes.filter(Boolean).length, 1);
    assert.deepEqual(outcomes.filter((_, index) => index % 8 < 3), [true, true, true, true, true, true]);
    const { count } = await db.selectFrom('refresh_tokens').select((eb) => eb.fn.countAll<string>().as('count'))
      .where('grant_id', '=', grant.id).where('created_at', '=', T0 + MINUTE).executeTakeFirstOrThrow();
    assert.equal(Number(count), 7, 'one pair for each bystander and one for the contested token');
  });

  it('spends nothing of an exchange whose grant was revoked, and the rest of its batch goes ahead', async () => {
    const live = await createGrant(storage);
    const revoked = await createGrant(storage);
    const pairs = [tokenPairFor(live.grant), tokenPairFor(live.grant), tokenPairFor(revoked.grant)];
    for (const pair of pairs) await storage.tokens.saveTokens(pair);
    await revokeGrant(storage, revoked.grant.id, T0 + 1);
    const next = pairs.map((pair) => tokenPairFor(chainGrant(pair), T0 + MINUTE));
    const outcomes = await Promise.all(pairs.map((pair, index) => storage.tokens.rotateRefreshToken(pair.refresh!.tokenHash, next[index]!, T0 + MINUTE)));
    assert.deepEqual(outcomes, [true, true, false]);
    const written = await writtenBy(next);
    assert.equal(written[2], undefined);
    assert.equal((await storage.tokens.findRefreshToken(pairs[2]!.refresh!.tokenHash))?.rotatedAt, null);
  });

  it('makes a rotation wait for a revocation under way on its grant, and spend nothing once that commits', async () => {
    const { grant } = await createGrant(storage);
    const pair = tokenPairFor(grant);
    await storage.tokens.saveTokens(pair);
    let rotation: Promise<boolean> | undefined;
    await other.transaction().execute(async (trx) => {
      await sql`update grants set revoked_at = ${T0 + 5} where id = ${grant.id}`.execute(trx);
      rotation = storage.tokens.rotateRefreshToken(pair.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE);
      assert.equal(await within(rotation, 300), 'waiting');
    });
    assert.equal(await rotation, false);
    assert.equal((await storage.tokens.findRefreshToken(pair.refresh!.tokenHash))?.rotatedAt, null);
  });

  it('writes the last use of the grants whose credentials a batch spent, and only theirs', async () => {
    const used = await createGrant(storage);
    const replayed = await createGrant(storage);
    const pairs = [tokenPairFor(used.grant), tokenPairFor(used.grant), tokenPairFor(replayed.grant)];
    for (const pair of pairs) await storage.tokens.saveTokens(pair);
    await storage.tokens.rotateRefreshToken(pairs[2]!.refresh!.tokenHash, tokenPairFor(replayed.grant), T0 + 1);
    const lastUse = async (grant: Grant) => (await storage.grants.findGrant(grant.id))?.lastUsedAt;
    assert.equal(await lastUse(replayed.grant), T0);

    const later = T0 + 10 * MINUTE;
    await Promise.all(pairs.map((pair) => storage.tokens.rotateRefreshToken(pair.refresh!.tokenHash, tokenPairFor(chainGrant(pair), later), later)));
    assert.equal(await lastUse(used.grant), later);
    assert.equal(await lastUse(replayed.grant), T0, 'a replayed token leaves its grant\'s last use alone');
  });

  it('redeems each code of a batch on its own: a used one among them gets nothing written', async () => {
    const grants = [await createGrant(storage), await createGrant(storage)];
    const codes = [0, 0, 1, 1].map((which) => codeFor(grants[which]!.grant));
    for (const code of codes) await storage.codes.saveAuthorizationCode(code);
    const [first, used, ...fresh] = codes;
    assert.equal(await storage.tokens.redeemAuthorizationCode(used!.codeHash, tokenPairFor(grants[0]!.grant), T0 + 1), true);

    const next = codes.map((code) => tokenPairFor(codeGrant(code), T0 + MINUTE));
    const outcomes = await Promise.all(codes.map((code, index) => storage.tokens.redeemAuthorizationCode(code.codeHash, next[index]!, T0 + MINUTE)));

    assert.deepEqual(outcomes, [true, false, true, true]);
    const written = await writtenBy(next);
    assert.equal(written[1], undefined);
    assert.equal(written[2], written[3]);
    assert.notEqual(written[0], undefined);
    for (const code of [first!, ...fresh]) assert.equal((await storage.codes.findAuthorizationCode(code.codeHash))?.consumedAt, T0 + MINUTE);
  });

  it('deletes an application while rotations on its grants are under way, without a deadlock', async () => {
    const developer = await createGrant(storage);
    const application = developer.application;
    const users = await Promise.all(Array.from({ length: 6 }, () => createUser(storage)));
    const grants = await Promise.all(users.map((user) => storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0)));
    const pairs = grants.flatMap((grant) => [tokenPairFor(grant), tokenPairFor(grant)]);
    for (const pair of pairs) await storage.tokens.saveTokens(pair);
    const rotations = pairs.map((pair) => storage.tokens.rotateRefreshToken(pair.refresh!.tokenHash, tokenPairFor(chainGrant(pair), T0 + MINUTE), T0 + MINUTE));
    const deleted = storage.applications.deleteApplication(application.id, application.ownerId, auditEvent('application.deleted'));
    assert.equal(await deleted, true);
    for (const outcome of await Promise.allSettled(rotations)) assert.equal(outcome.status, 'fulfilled');
    assert.equal(await storage.grants.findGrant(grants[0]!.id), undefined);
  });

  it('takes an application\'s grants in id order when deleting it, as a batch of exchanges does, so the two cannot deadlock', async () => {
    const { application, grant: lowest } = await createGrant(storage);
    const [middle, highest] = await Promise.all([createUser(storage), createUser(storage)]
      .map(async (user) => storage.grants.findOrCreateActiveGrant((await user).id, application.id, ['read'], T0)));
    const [low, high] = [lowest, middle!, highest!].map((grant) => grant.id).sort((a, b) => a - b) as [number, number];
    // Revoked and restored, the lowest grant's row now lies after the others in the
    // table and in its indexes (a column of an index predicate changed, so no HOT
    // update), so a cascade left to itself would take the higher ids first.
    for (const revokedAt of [T0 + 1, null]) await other.updateTable('grants').set({ revoked_at: revokedAt }).where('id', '=', low).execute();
    let deleted: Promise<boolean> | undefined;
    // A batch holding the lowest grant, then taking the highest; waiting for the
    // second lock longer than PostgreSQL's deadlock check (1 s) would hide a deadlock.
    await other.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '500ms'`.execute(trx);
      await sql`select id from grants where id = ${low} for update`.execute(trx);
      deleted = storage.applications.deleteApplication(application.id, application.ownerId, auditEvent('application.deleted'));
      assert.equal(await within(deleted, 300), 'waiting');
      await sql`select id from grants where id = ${high} for update`.execute(trx);
    });
    assert.equal(await deleted, true);
    assert.equal(await storage.grants.findGrant(high), undefined);
  });
});

/** The grant a saved token pair was issued on, as the refresh grant finds it. */
function chainGrant(pair: IssuedTokens): Grant {
  const { grantId, applicationId, userId } = pair.access;
  return { id: grantId, applicationId, userId, scope: ['read'], createdAt: T0, lastUsedAt: null, revokedAt: null };
}

/** The grant a code was issued on. */
function codeGrant(code: AuthorizationCode): Grant {
  return { id: code.grantId, applicationId: code.applicationId, userId: code.userId, scope: ['read'], createdAt: T0, lastUsedAt: null, revokedAt: null };
}
