// What revoking, disconnecting, deleting an application and the purge do to the
// token tables, each statement explained: none may read a whole table. Several of
// these statements are served only by a partial index whose condition they must
// state themselves (issuedAlone, migration 0010), and the token tables hold millions
// of rows; a statement that lost its condition would still be correct, only slow,
// on SQLite blocking the event loop for as long as the scan takes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  CompiledQuery, createQueryId, type Kysely, type KyselyPlugin, type PluginTransformQueryArgs,
  type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow, sql,
} from 'kysely';
import { createKyselyStorage } from '../../src/storage/kysely/storage.ts';
import type { Database, StorageKind } from '../../src/storage/schema.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { describeStorageContract } from './contract.ts';
import { T0, MINUTE, accessTokenFor, auditEvent, codeFor, createGrant, deleteApplication, refreshTokenFor, revokeGrant } from './fixtures.ts';

const TOKEN_TABLES = ['access_tokens', 'refresh_tokens', 'authorization_codes'];

/** Keeps every query the stores build, for explaining afterwards. */
class StatementRecorder implements KyselyPlugin {
  nodes: RootOperationNode[] = [];

  /** Forgets what was recorded so far: the setup's statements are not under test. */
  restart(): void {
    this.nodes = [];
  }

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push(node);
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

/** Stores whose statements `recorder` sees; over the test's own database, which its owner closes. */
function recordedStorage(db: Kysely<Database>, kind: StorageKind, recorder: StatementRecorder): OpenedStorage {
  return createKyselyStorage(db.withPlugin(recorder), kind);
}

async function explain(db: Kysely<Database>, kind: StorageKind, query: CompiledQuery): Promise<string> {
  // PostgreSQL would scan tables this small whatever their indexes: told not to, it
  // still does where no index can serve the statement.
  return db.transaction().execute(async (trx) => {
    if (kind === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
    const explained = await trx.executeQuery(CompiledQuery.raw(`explain ${kind === 'sqlite' ? 'query plan ' : ''}${query.sql}`, [...query.parameters]));
    return explained.rows.map((row) => Object.values(row as object).join(' ')).join('\n');
  });
}

/** The whole-table reads of the token tables among the recorded statements, with the statement that made each. */
async function tokenTableScans(db: Kysely<Database>, kind: StorageKind, recorder: StatementRecorder): Promise<string[]> {
  const scan = kind === 'sqlite'
    ? new RegExp(`\\bSCAN (${TOKEN_TABLES.join('|')})\\b`)
    : new RegExp(`Seq Scan on (${TOKEN_TABLES.join('|')})\\b`);
  const found: string[] = [];
  for (const node of recorder.nodes) {
    const query = db.getExecutor().compileQuery(node, createQueryId());
    if (!TOKEN_TABLES.some((table) => query.sql.includes(`"${table}"`))) continue;
    const plan = await explain(db, kind, query);
    if (scan.test(plan)) found.push(`${query.sql}\n${plan}`);
  }
  return found;
}

describeStorageContract('statements on the token tables', (target) => {
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
    const { db, kind } = target();
    const recorder = new StatementRecorder();
    const storage = recordedStorage(db, kind, recorder);
    const { grant, code } = await withTokens(storage);
    recorder.restart();
    await storage.grants.revokeAuthorization(grant.id, code.codeHash, T0 + MINUTE, auditEvent('token.revoked'));
    await revokeGrant(storage, grant.id, T0 + 2 * MINUTE);
    assert.ok(recorder.nodes.length > 0);
    assert.deepEqual(await tokenTableScans(db, kind, recorder), []);
  });

  it('deleting an application reads no token table whole', async () => {
    const { db, kind } = target();
    const recorder = new StatementRecorder();
    const storage = recordedStorage(db, kind, recorder);
    const { application } = await withTokens(storage);
    recorder.restart();
    await deleteApplication(storage, application);
    assert.deepEqual(await tokenTableScans(db, kind, recorder), []);
  });

  it('the purge reads no token table whole', async () => {
    const { db, kind } = target();
    const recorder = new StatementRecorder();
    const storage = recordedStorage(db, kind, recorder);
    const { grant } = await withTokens(storage);
    await revokeGrant(storage, grant.id, T0 + MINUTE);
    recorder.restart();
    const purged = await storage.tokens.purgeExpired(T0 + 91 * 24 * 60 * MINUTE, T0 + 91 * 24 * 60 * MINUTE);
    assert.deepEqual(purged, { accessTokens: 2, refreshTokens: 1, codes: 1 });
    assert.deepEqual(await tokenTableScans(db, kind, recorder), []);
  });
});
