// Token issues, rotations and redemptions by the rules of token-rules.ts, in batches
// (platform/batches.ts) of one transaction: on SQLite as the steps below, on PostgreSQL as one
// statement of the same steps (token-writes-postgres.ts), as each there is a round trip.
import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import type { AccessTokenRow, AuditEventRow, Database, RefreshTokenRow, StorageKind } from '../schema.ts';
import { NEW_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { Batches } from '../../platform/batches.ts';
import { isOutage } from './batches.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS, accessTokenRow, refreshTokenRow } from './token-rows.ts';
import { type BatchWritten, type TokenWrite, grantsOf, liveGrants, redemption, rotation, spentBy } from './token-rules.ts';
import { writeInOneStatement } from './token-writes-postgres.ts';

export type { TokenWrite } from './token-rules.ts';

/** How stale a grant's last use may be before an issue records it again: the Connections page shows it to the minute. */
const LAST_USE_RESOLUTION_MS = 1000;

/** SQLite: the batch as a transaction of steps. */
async function writeInSteps(trx: Transaction<Database>, writes: readonly TokenWrite[]): Promise<BatchWritten> {
  const lastUses = new Map((await liveGrants(trx, 'sqlite', grantsOf(writes)).execute()).map((row) => [row.id, row.last_used_at]));
  const live = [...lastUses.keys()];
  const [rotating, redeeming] = [spentBy(writes, 'refreshToken'), spentBy(writes, 'authorizationCode')];
  const spent = new Set(live.length === 0 ? [] : [
    ...(rotating.size === 0 ? [] : await rotation(trx, rotating, live).execute()).map((row) => row.token_hash),
    ...(redeeming.size === 0 ? [] : await redemption(trx, redeeming, live).execute()).map((row) => row.code_hash),
  ]);
  const written = writes.map(({ tokens, spends }) => lastUses.has(tokens.access.grantId) && (spends === undefined || spent.has(spends.hash)));
  for (const { tokens: { access, refresh, event } } of writes.filter((_, index) => written[index])) {
    await insertRow.access(trx, accessTokenRow(access, refresh?.tokenHash ?? null));
    if (refresh !== undefined) await insertRow.refresh(trx, refreshTokenRow(refresh));
    if (event !== undefined) await insertRow.event(trx, auditEventRow(event));
  }
  return { written, lastUses };
}

/**
 * A one-row INSERT into `table`, compiled once and run with each row's values: SQLite
 * inserts a multi-row VALUES list more slowly than its rows one by one.
 */
function rowInsert<Row extends object>(table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly (keyof Row & string)[]) {
  let compiled: CompiledQuery | undefined;
  return (trx: Kysely<Database>, row: Row) => {
    compiled ??= trx.insertInto(table).values(Object.fromEntries(columns.map((column) => [column, null])) as never).compile();
    return trx.executeQuery({ ...compiled, parameters: columns.map((column) => row[column]) });
  };
}

const insertRow = {
  access: rowInsert<AccessTokenRow>('access_tokens', ACCESS_TOKEN_COLUMNS),
  refresh: rowInsert<RefreshTokenRow>('refresh_tokens', REFRESH_TOKEN_COLUMNS),
  event: rowInsert<Omit<AuditEventRow, 'id'>>('audit_events', NEW_EVENT_COLUMNS),
};

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

/** The token writes of one database, in batches; each answers whether it was written. */
export function tokenWrites(database: OpenDatabase): (write: TokenWrite) => Promise<boolean> {
  const { db, kind } = database;
  const batches = new Batches<TokenWrite, boolean>(async (writes) => {
    if (kind === 'sqlite') {
      // SQLite's single writer takes the grants' rows in the same transaction.
      return database.durableTransaction(async (trx) => {
        const batch = await writeInSteps(trx, writes);
        await touchLastUse(trx, kind, writes, batch);
        return batch.written;
      });
    }
    const batch = await writeInOneStatement(db, writes);
    // On PostgreSQL after the commit: inside, the batch's shared locks on the grants
    // would turn exclusive while another instance's batch holds them, a deadlock.
    // A last use that fails to be written now is written by a later issue.
    await touchLastUse(db, kind, writes, batch).catch(() => undefined);
    return batch.written;
  }, (write, batch) => write.spends === undefined || !batch.some((other) => other.spends?.hash === write.spends!.hash), isOutage);
  return (write) => batches.submit(write);
}
