// What the token endpoint, the bearer API, revoking, disconnecting, deleting an
// application and the purge do to the token tables (and to grants, which every
// issue claims), each statement explained: none may read a whole table. Several of these statements are served only by a partial
// index whose condition they must state themselves (issuedAlone, migration 0010),
// and the token tables hold millions of rows; a statement that lost its condition
// would still be correct, only slow, on SQLite blocking the event loop for as long
// as the scan takes.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import {
  CompiledQuery, createQueryId, type Kysely, type KyselyPlugin, type PluginTransformQueryArgs,
  type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type Transaction, type UnknownRow, sql,
} from 'kysely';
import { isPlaceholder } from '../../src/storage/kysely/compiled-once.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import type { Database, StorageKind } from '../../src/storage/schema.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { describeStorageContract } from './contract.ts';
import { T0, DAY, MINUTE, accessTokenFor, auditEvent, codeFor, createGrant, deleteApplication, refreshTokenFor, revokeGrant } from './fixtures.ts';

/** Keeps every query the stores run, for explaining afterwards. */
class StatementRecorder implements KyselyPlugin {
  nodes: RootOperationNode[] = [];
  /** Every query built, by id: a query built into another (a part of a WITH) is never run itself. */
  private readonly built = new Map<unknown, RootOperationNode>();

  /** Forgets what was recorded so far: the setup's statements are not under test. */
  restart(): void {
    this.nodes = [];
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    this.built.set(queryId, node);
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const node = this.built.get(queryId);
    if (node !== undefined) this.nodes.push(node);
    return result;
  }
}

/** A statement's plan: as text, for the failure message, and the tables (or aliases) it reads whole. */
interface Plan {
  text: string;
  readWhole: string[];
}

async function explain(db: Kysely<Database>, kind: StorageKind, recorded: CompiledQuery): Promise<Plan> {
  // A statement compiled once (compiled-once.ts) was recorded with its placeholders. Its
  // lists are JSON, which no plan looks into: PostgreSQL runs its generic plan.
  const compiledOnce = recorded.parameters.some(isPlaceholder);
  const query = { ...recorded, parameters: recorded.parameters.map((value) => (isPlaceholder(value) ? null : value)) };
  return db.transaction().execute(async (trx) => {
    if (kind === 'sqlite') {
      // SQLite's plan does not depend on the values bound.
      const explained = await trx.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      const details = explained.rows.map((row) => row.detail);
      // "SCAN a" and "SCAN a USING INDEX ..." both read every row: SQLite names the alias, if any.
      return { text: details.join('\n'), readWhole: details.flatMap((detail) => /^SCAN (\w+)/.exec(detail)?.[1] ?? []) };
    }
    // Even seeded (seedForThePlanner), the tables are small enough that PostgreSQL
    // might scan one where it would not at production's size: told not to, it
    // still does where no index can serve the statement, or reads a whole index.
    await sql`set local enable_seqscan = off`.execute(trx);
    const custom = (await trx.executeQuery<PostgresExplained>(CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]))).rows[0]!['QUERY PLAN'][0].Plan;
    const generic = (await explainGenericPlan<PostgresExplained>(trx, query)).rows[0]!['QUERY PLAN'][0].Plan;
    const chosen = compiledOnce || genericPlanChosen(custom, generic) ? generic : custom;
    return { text: JSON.stringify(chosen, null, 1), readWhole: tablesReadWhole(chosen) };
  });
}

/**
 * Whether PostgreSQL runs a named statement with its generic plan once it has run
 * it five times with custom ones (plancache.c, choose_custom_plan): when the generic
 * plan costs less than a custom plan and the planning a custom plan takes, which it
 * reckons at 1,000 operator costs per relation and one more.
 */
function genericPlanChosen(custom: PostgresPlanNode, generic: PostgresPlanNode): boolean {
  const CPU_OPERATOR_COST = 0.0025;
  const planning = 1000 * CPU_OPERATOR_COST * (relationsIn(custom) + 1);
  return generic['Total Cost'] < custom['Total Cost'] + planning;
}

function relationsIn(node: PostgresPlanNode): number {
  return (node['Relation Name'] === undefined ? 0 : 1) + (node.Plans ?? []).reduce((sum, child) => sum + relationsIn(child), 0);
}

interface PostgresExplained {
  'QUERY PLAN': [{ Plan: PostgresPlanNode }];
}

interface PostgresPlanNode {
  'Node Type': string;
  'Total Cost': number;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Plans?: PostgresPlanNode[];
}

/**
 * A sequential scan reads a table whole, and so does an index scan with no
 * condition on the index (PostgreSQL walks a whole index that way for its order,
 * filtering every row). A bitmap index scan names no table: its parent does.
 */
function tablesReadWhole(node: PostgresPlanNode, parentTable?: string): string[] {
  const table = node['Relation Name'] ?? parentTable;
  const type = node['Node Type'];
  const whole = type === 'Seq Scan' || (type.endsWith('Index Scan') && node['Index Cond'] === undefined);
  const below = (node.Plans ?? []).flatMap((child) => tablesReadWhole(child, type === 'Bitmap Heap Scan' ? table : undefined));
  return whole && table !== undefined ? [table, ...below] : below;
}

/**
 * Every statement runs as a named statement (postgres/postgres-database.ts), which
 * PostgreSQL may plan once for any arguments after its first few runs: that generic
 * plan uses no argument, so each is given as null.
 */
async function explainGenericPlan<Row>(trx: Transaction<Database>, query: CompiledQuery): Promise<QueryResult<Row>> {
  await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
  await trx.executeQuery(CompiledQuery.raw(`prepare folio_explained as ${query.sql}`));
  try {
    const nulls = query.parameters.map(() => 'null').join(', ');
    return await trx.executeQuery<Row>(CompiledQuery.raw(`explain (format json) execute folio_explained${nulls === '' ? '' : `(${nulls})`}`));
  } finally {
    await trx.executeQuery(CompiledQuery.raw('deallocate folio_explained'));
  }
}

/** A token table (or grants) named in a statement, and the alias that may follow it. */
const TOKEN_TABLE = /"?\b(access_tokens|refresh_tokens|authorization_codes|grants)\b"?(?:\s+(?:as\s+)?"?(\w+)"?)?/gi;

/**
 * The token tables a statement names, and every name it gives them: their own,
 * quoted or not (some statements are written as raw SQL), and their aliases,
 * which is what SQLite's plan calls them.
 */
function tokenTablesIn(statement: string): { tables: string[]; names: string[] } {
  const tables: string[] = [];
  const names: string[] = [];
  for (const [, table, alias] of statement.matchAll(TOKEN_TABLE)) {
    tables.push(table!);
    names.push(table!);
    if (alias !== undefined) names.push(alias);
  }
  return { tables, names };
}

/** What explaining the recorded statements found: the token tables they touch, and each one's whole-table reads. */
interface PlanReview {
  tablesExplained: Set<string>;
  /** Each statement that reads a token table whole, with its plan. */
  wholeReads: string[];
}

async function reviewTokenTablePlans(db: Kysely<Database>, kind: StorageKind, recorder: StatementRecorder): Promise<PlanReview> {
  const review: PlanReview = { tablesExplained: new Set(), wholeReads: [] };
  for (const node of recorder.nodes) {
    const query = db.getExecutor().compileQuery(node, createQueryId());
    const { tables, names } = tokenTablesIn(query.sql);
    if (tables.length === 0) continue;
    for (const table of tables) review.tablesExplained.add(table);
    const plan = await explain(db, kind, query);
    if (plan.readWhole.some((name) => names.includes(name))) review.wholeReads.push(`${query.sql}\n${plan.text}`);
  }
  return review;
}

/** Rows each token table holds before a test on PostgreSQL, and the grants they share. */
const PLANNER_ROWS = 4000;
const PLANNER_GRANTS = 2000;

/**
 * PostgreSQL plans by its statistics, and on the few rows a test writes it would
 * read a whole index where, at production's size, it looks up by key (an
 * application's deletion read every token issued alone, its plan with a
 * realistic table being a look-up by grant). The token tables are given some
 * thousands of live rows over several grants and analyzed first. SQLite plans
 * by its rules, not by rows, until ANALYZE is run, which Folio never does.
 */
async function seedForThePlanner(storage: OpenedStorage, db: Kysely<Database>): Promise<void> {
  const { application } = await createGrant(storage);
  await sql`insert into users (email, name, password_hash, created_at, updated_at)
    select 'planner-' || i || '@example.com', 'Planner', 'scrypt$hash', ${sql.lit(T0)}, ${sql.lit(T0)} from generate_series(1, ${sql.lit(PLANNER_GRANTS)}) as i`.execute(db);
  await sql`insert into grants (user_id, application_id, scope, created_at)
    select id, ${sql.lit(application.id)}, 'read', ${sql.lit(T0)} from users where email like 'planner-%'`.execute(db);
  const liveFor = sql.lit(T0 + 1000 * DAY);
  const row = sql`'planner-' || i, g.id, g.application_id, g.user_id, 'read', ${sql.lit(T0)}, ${liveFor}`;
  const spread = sql`generate_series(1, ${sql.lit(PLANNER_ROWS)}) as i join (select *, row_number() over (order by id) as n from grants) as g on g.n = 1 + i % ${sql.lit(PLANNER_GRANTS)}`;
  await sql`insert into refresh_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at) select ${row} from ${spread}`.execute(db);
  // Half bound to a refresh token, half issued alone (client_credentials).
  await sql`insert into access_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at, refresh_token_hash)
    select ${row}, case when i % 2 = 0 then 'planner-' || i end from ${spread}`.execute(db);
  await sql`insert into authorization_codes (code_hash, grant_id, application_id, user_id, redirect_uri, scope, created_at, expires_at)
    select 'planner-' || i, g.id, g.application_id, g.user_id, 'https://app.example/callback', 'read', ${sql.lit(T0)}, ${liveFor} from ${spread}`.execute(db);
  await sql`analyze grants, access_tokens, refresh_tokens, authorization_codes`.execute(db);
}

describeStorageContract('statements on the token tables', (target) => {
  beforeEach(async () => {
    const { storage, db, kind } = target();
    if (kind === 'postgres') await seedForThePlanner(storage, db);
  });

  /** The test's database, and stores over it whose every statement a recorder of their own sees. */
  function recorded() {
    const { db, kind, database } = target();
    const recorder = new StatementRecorder();
    const watched = db.withPlugin(recorder);
    // Over the test's own database, which its owner closes; durable as its in-memory or PostgreSQL transactions are.
    const storage = createStorage({ ...database, db: watched, durableTransaction: (work) => watched.transaction().execute(work) });
    return { db, kind, recorder, storage };
  }

  async function withTokens(storage: OpenedStorage) {
    const { application, grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    const bound = {
      access: { ...accessTokenFor(grant), originCodeHash: code.codeHash },
      refresh: { ...refreshTokenFor(grant), originCodeHash: code.codeHash },
    };
    await storage.tokens.saveTokens(bound);
    await storage.tokens.saveTokens({ access: accessTokenFor(grant) });
    return { application, grant, code };
  }

  it('revoking one authorization, then the rest of the grant, reads no token table whole', async () => {
    const { db, kind, recorder, storage } = recorded();
    const { grant, code } = await withTokens(storage);
    recorder.restart();
    await storage.grants.revokeAuthorization(grant.id, code.codeHash, T0 + MINUTE, auditEvent('token.revoked'));
    await revokeGrant(storage, grant.id, T0 + 2 * MINUTE);
    assert.ok(recorder.nodes.length > 0);
    assert.deepEqual((await reviewTokenTablePlans(db, kind, recorder)).wholeReads, []);
  });

  it('deleting an application reads no token table whole', async () => {
    const { db, kind, recorder, storage } = recorded();
    const { application } = await withTokens(storage);
    recorder.restart();
    await deleteApplication(storage, application);
    assert.deepEqual((await reviewTokenTablePlans(db, kind, recorder)).wholeReads, []);
  });

  it('the purge reads no token table whole', async () => {
    const { db, kind, recorder, storage } = recorded();
    const { grant } = await withTokens(storage);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    recorder.restart();
    const purged = await storage.tokens.purgeExpired(T0 + 91 * 24 * 60 * MINUTE, T0 + 91 * 24 * 60 * MINUTE);
    assert.deepEqual(purged, { accessTokens: 2, refreshTokens: 1, codes: 1 });
    assert.deepEqual((await reviewTokenTablePlans(db, kind, recorder)).wholeReads, []);
  });

  it('what the token endpoint and the bearer API run reads no token table whole, nor grants', async () => {
    const { db, kind, recorder, storage } = recorded();
    const { grant } = await createGrant(storage);
    const issuedAlone = accessTokenFor(grant);
    assert.equal(await storage.tokens.saveTokens({ access: issuedAlone, event: auditEvent('token.issued') }), true);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    assert.ok(await storage.codes.findAuthorizationCode(code.codeHash));
    const first = { access: { ...accessTokenFor(grant), originCodeHash: code.codeHash }, refresh: { ...refreshTokenFor(grant), originCodeHash: code.codeHash } };
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, first, T0 + MINUTE), true);
    assert.ok(await storage.tokens.findRefreshToken(first.refresh.tokenHash));
    const next = { access: { ...accessTokenFor(grant), originCodeHash: code.codeHash }, refresh: { ...refreshTokenFor(grant), originCodeHash: code.codeHash } };
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh.tokenHash, next, T0 + 2 * MINUTE), true);
    assert.ok(await storage.tokens.findAccessToken(next.access.tokenHash));
    assert.ok(await storage.tokens.findAccessToken(issuedAlone.tokenHash));
    assert.equal(await storage.tokens.revokeAccessToken(issuedAlone.tokenHash, T0 + 3 * MINUTE, auditEvent('token.revoked')), true);
    const review = await reviewTokenTablePlans(db, kind, recorder);
    assert.deepEqual([...review.tablesExplained].sort(), ['access_tokens', 'authorization_codes', 'grants', 'refresh_tokens']);
    assert.deepEqual(review.wholeReads, []);
  });
});
