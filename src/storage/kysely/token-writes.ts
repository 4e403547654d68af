// Token issues, rotations and redemptions by the rules of token-rules.ts, in batches of one
// transaction: on SQLite as the steps below, on PostgreSQL as one statement (token-writes-postgres.ts).
import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import type { AccessTokenRow, AuditEventRow, Database, RefreshTokenRow, StorageKind } from '../schema.ts';
import { NEW_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { Batches } from '../../platform/batches.ts';
import { isOutage } from './batches.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS, accessTokenRow, refreshTokenRow } from './token-rows.ts';
import { compiledOnce } from './compiled-once.ts';
import { type BatchWritten, type TokenWrite, batchParameters, grantsOf, liveGrantIds, liveGrants, redemption, rotation } from './token-rules.ts';
import { writingInOneStatement } from './token-writes-postgres.ts';

export type { TokenWrite } from './token-rules.ts';

/** How stale a grant's last use may be before an issue records it again: the Connections page shows it to the minute. */
const LAST_USE_RESOLUTION_MS = 1000;

/** SQLite: the batch as a transaction of steps. */
function writingInSteps(db: Kysely<Database>): (trx: Transaction<Database>, writes: readonly TokenWrite[]) => Promise<BatchWritten> {
  const live = compiledOnce(['grants'], ({ grants }) => liveGrants(db, 'sqlite', grants).compile());
  const rotate = compiledOnce(['grants', 'claims'], ({ grants, claims }) => rotation(db, 'sqlite', claims, liveGrantIds(db, 'sqlite', grants)).compile());
  const redeem = compiledOnce(['grants', 'claims'], ({ grants, claims }) => redemption(db, 'sqlite', claims, liveGrantIds(db, 'sqlite', grants)).compile());
  const insertAccess = rowsInsert<AccessTokenRow>(db, 'access_tokens', ACCESS_TOKEN_COLUMNS);
  const insertRefresh = rowsInsert<RefreshTokenRow>(db, 'refresh_tokens', REFRESH_TOKEN_COLUMNS);
  const insertEvent = rowsInsert<Omit<AuditEventRow, 'id'>>(db, 'audit_events', NEW_EVENT_COLUMNS);
  const spending = (writes: readonly TokenWrite[], credential: string) => writes.some((write) => write.spends?.credential === credential);
  return async (trx, writes) => {
    const parameters = batchParameters('sqlite', writes);
    const lastUses = new Map((await live(trx, parameters)).rows.map((row) => [row.id, row.last_used_at]));
    const spent = new Set(lastUses.size === 0 ? [] : [
      ...(spending(writes, 'refreshToken') ? (await rotate(trx, parameters)).rows.map((row) => row.token_hash) : []),
      ...(spending(writes, 'authorizationCode') ? (await redeem(trx, parameters)).rows.map((row) => row.code_hash) : []),
    ]);
    const written = writes.map(({ tokens, spends }) => lastUses.has(tokens.access.grantId) && (spends === undefined || spent.has(spends.hash)));
    const won = writes.filter((_, index) => written[index]).map((write) => write.tokens);
    await insertAccess(trx, won.map(({ access, refresh }) => accessTokenRow(access, refresh?.tokenHash ?? null)));
    await insertRefresh(trx, won.map(({ refresh }) => refresh && refreshTokenRow(refresh)));
    await insertEvent(trx, won.map(({ event }) => event && auditEventRow(event)));
    return { written, lastUses };
  };
}

/**
 * The INSERT of a batch's rows into `table`, one statement compiled once for each number of rows (a batch
 * holds at most platform/batches.ts's MAX_BATCH): an INSERT a row, each through Kysely's executor, cost
 * client_credentials on SQLite 7% more instructions.
 */
function rowsInsert<Row extends object>(db: Kysely<Database>, table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly (keyof Row & string)[]) {
  const compiled = new Map<number, CompiledQuery>();
  // Compiled from rows of this shape, so the parameters go in the order of `columns`.
  const shape = Object.fromEntries(columns.map((column) => [column, column]));
  return async (executor: Kysely<Database>, rowsOrNone: readonly (Row | undefined)[]): Promise<void> => {
    const rows = rowsOrNone.filter((row) => row !== undefined);
    if (rows.length === 0) return;
    let query = compiled.get(rows.length);
    if (query === undefined) {
      query = db.insertInto(table).values(rows.map(() => shape) as never).compile();
      compiled.set(rows.length, query);
    }
    // A loop, not flatMap: flatMap's arrays cost the endpoint 6% more instructions.
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of columns) parameters.push(row[column]);
    await executor.executeQuery({ ...query, parameters });
  };
}

/**
 * Writes the last use of the grants of the writes that won, where it is a second older
 * than theirs; on PostgreSQL taking the rows in id order, as every writer of several grants does.
 */
async function touchLastUse(db: Kysely<Database>, kind: StorageKind, writes: readonly TokenWrite[], { written, lastUses }: BatchWritten): Promise<void> {
  const winners = writes.filter((_, index) => written[index]);
  const now = Math.max(...winners.map((write) => write.now));
  const grantIds = grantsOf(winners).filter((id) => (lastUses.get(id) ?? -Infinity) <= now - LAST_USE_RESOLUTION_MS);
  if (grantIds.length === 0) return;
  const stale = db.selectFrom('grants').select('id')
    .where('id', 'in', grantIds).where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - LAST_USE_RESOLUTION_MS)]))
    .$if(kind === 'postgres', (query) => query.orderBy('id').forUpdate());
  await db.updateTable('grants').set({ last_used_at: now }).where('id', 'in', stale).execute();
}

export function tokenWrites(database: OpenDatabase): (write: TokenWrite) => Promise<boolean> {
  const { db, kind } = database;
  const [writeInSteps, writeInOneStatement] = [writingInSteps(db), writingInOneStatement(db)];
  const batches = new Batches<TokenWrite, boolean>(async (writes) => {
    if (kind === 'sqlite') {
      // SQLite's single writer takes the grants' rows in the same transaction.
      return database.durableTransaction(async (trx) => {
        const batch = await writeInSteps(trx, writes);
        await touchLastUse(trx, kind, writes, batch);
        return batch.written;
      });
    }
    const batch = await writeInOneStatement(writes);
    // On PostgreSQL after the commit: inside, the batch's shared locks on the grants
    // would turn exclusive while another instance's batch holds them, a deadlock.
    // A last use that fails to be written now is written by a later issue.
    await touchLastUse(db, kind, writes, batch).catch(() => undefined);
    return batch.written;
  }, (write, batch) => write.spends === undefined || !batch.some((other) => other.spends?.hash === write.spends!.hash), isOutage);
  return (write) => batches.submit(write);
}
