// Token issues, refresh-token rotations and code redemptions, written once for
// both databases. The rules, each stated here only:
// - tokens are written only while their grant is live (not revoked);
// - a rotation or a redemption writes only if it spends its credential, and a
//   credential is spent once (RFC 6749 §4.1.2, RFC 9700 §4.14.2): of the requests
//   presenting it, exactly one wins, by a conditional UPDATE;
// - tokens and their audit event commit together or not at all.
// Writes that arrive together go as one batch in one transaction (batches.ts).
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import type { Database, StorageKind } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { auditEventRow } from './audit.ts';
import { Batches } from './batches.ts';
import { accessTokenRow, refreshTokenRow } from './token-rows.ts';

export interface TokenWrite {
  tokens: IssuedTokens;
  /** The credential this write spends: a refresh token (a rotation) or an authorization code (a redemption). */
  spends?: { credential: 'refreshToken' | 'authorizationCode'; hash: string };
  now: number;
}

/** How stale a grant's last use may be before an issue records it again: the Connections page shows it to the minute. */
export const LAST_USE_RESOLUTION_MS = 1000;

/**
 * The grants among `grantIds` that are live. On PostgreSQL they are locked shared,
 * in id order, until the commit: a revocation takes its grant exclusively first,
 * so it waits for this write and then revokes what it wrote, or this write waits
 * and finds the grant revoked. SQLite runs one writer at a time.
 */
async function liveGrants(trx: Kysely<Database>, kind: StorageKind, grantIds: number[]): Promise<Set<number>> {
  const rows = await trx.selectFrom('grants').select('id')
    .where('id', 'in', grantIds).where('revoked_at', 'is', null)
    .$if(kind === 'postgres', (query) => query.orderBy('id').forShare())
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Each spent credential's hash, with the time of the write that spends it. */
type Spending = Map<string, number>;

/** `case <key> when <hash> then <time> ... end`: each credential marked spent at its own write's time. */
function spentAt(key: 'token_hash' | 'code_hash', spending: Spending) {
  return (eb: ExpressionBuilder<Database, 'refresh_tokens' | 'authorization_codes'>) => {
    // Cast, so that PostgreSQL types the parameters as the column's bigint, not text.
    const time = (value: number) => eb.cast<number>(eb.val(value), 'bigint');
    const [first, ...rest] = [...spending];
    let times = eb.case(eb.ref(key as 'token_hash')).when(eb.val(first![0])).then(time(first![1]));
    for (const [hash, at] of rest) times = times.when(eb.val(hash)).then(time(at));
    return times.end();
  };
}

/** Marks the live refresh tokens among those spent rotated, unless they already were or were revoked; returns those it marked. */
async function rotate(trx: Kysely<Database>, spending: Spending, grantIds: number[]): Promise<string[]> {
  if (spending.size === 0) return [];
  const rows = await trx.updateTable('refresh_tokens').set((eb) => ({ rotated_at: spentAt('token_hash', spending)(eb) }))
    .where('token_hash', 'in', [...spending.keys()]).where('rotated_at', 'is', null).where('revoked_at', 'is', null)
    .where('grant_id', 'in', grantIds)
    .returning('token_hash').execute();
  return rows.map((row) => row.token_hash);
}

/** Marks the unused codes among those spent used; returns those it marked. */
async function redeem(trx: Kysely<Database>, spending: Spending, grantIds: number[]): Promise<string[]> {
  if (spending.size === 0) return [];
  const rows = await trx.updateTable('authorization_codes').set((eb) => ({ consumed_at: spentAt('code_hash', spending)(eb) }))
    .where('code_hash', 'in', [...spending.keys()]).where('consumed_at', 'is', null)
    .where('grant_id', 'in', grantIds)
    .returning('code_hash').execute();
  return rows.map((row) => row.code_hash);
}

/**
 * Writes the grants' last use where what they hold is a second old. On PostgreSQL
 * the rows are taken in id order, as every other writer of several grants takes them.
 */
export async function touchLastUse(db: Kysely<Database>, kind: StorageKind, grantIds: number[], now: number): Promise<void> {
  if (grantIds.length === 0) return;
  const stale = db.selectFrom('grants').select('id')
    .where('id', 'in', grantIds).where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - LAST_USE_RESOLUTION_MS)]))
    .$if(kind === 'postgres', (query) => query.orderBy('id').forUpdate());
  await db.updateTable('grants').set({ last_used_at: now }).where('id', 'in', stale).execute();
}

const latest = (writes: readonly TokenWrite[]) => Math.max(...writes.map((write) => write.now));
const grantsOf = (writes: readonly TokenWrite[]) => [...new Set(writes.map((write) => write.tokens.access.grantId))];

const spentBy = (writes: readonly TokenWrite[], credential: 'refreshToken' | 'authorizationCode'): Spending =>
  new Map(writes.flatMap((write) => (write.spends?.credential === credential ? [[write.spends.hash, write.now]] : [])));

/** Writes a batch in `trx`; says of each write whether it was written. */
async function writeBatch(trx: Transaction<Database>, kind: StorageKind, writes: readonly TokenWrite[]): Promise<boolean[]> {
  const live = [...await liveGrants(trx, kind, grantsOf(writes))];
  const spent = live.length === 0 ? new Set<string>() : new Set([
    ...await rotate(trx, spentBy(writes, 'refreshToken'), live),
    ...await redeem(trx, spentBy(writes, 'authorizationCode'), live),
  ]);
  const written = writes.map(({ tokens, spends }) => live.includes(tokens.access.grantId) && (spends === undefined || spent.has(spends.hash)));
  const winners = writes.filter((_, index) => written[index]);
  if (winners.length === 0) return written;
  const tokens = winners.map((write) => write.tokens);
  await trx.insertInto('access_tokens').values(tokens.map(({ access, refresh }) => accessTokenRow(access, refresh?.tokenHash ?? null))).execute();
  const refreshes = tokens.flatMap(({ refresh }) => (refresh === undefined ? [] : [refreshTokenRow(refresh)]));
  if (refreshes.length > 0) await trx.insertInto('refresh_tokens').values(refreshes).execute();
  const events = tokens.flatMap(({ event }) => (event === undefined ? [] : [auditEventRow(event)]));
  if (events.length > 0) await trx.insertInto('audit_events').values(events).execute();
  // Inside the transaction SQLite's single writer takes the grants' rows with the
  // rest; on PostgreSQL that would turn this batch's shared locks into exclusive
  // ones while another instance's batch holds them shared, a deadlock.
  if (kind === 'sqlite') await touchLastUse(trx, kind, grantsOf(winners), latest(winners));
  return written;
}

/** The token writes of one database, in batches; each answers whether it was written. */
export function tokenWrites(database: OpenDatabase): (write: TokenWrite) => Promise<boolean> {
  const { kind } = database;
  const batches = new Batches<TokenWrite, boolean>(async (writes) => {
    const written = await database.durableTransaction((trx) => writeBatch(trx, kind, writes));
    const winners = writes.filter((_, index) => written[index]);
    if (kind === 'postgres' && winners.length > 0) {
      // The tokens are committed: a last use that fails to be written now is written by a later issue.
      await touchLastUse(database.db, kind, grantsOf(winners), latest(winners)).catch(() => undefined);
    }
    return written;
  }, (write, batch) => write.spends === undefined || !batch.some((other) => other.spends?.hash === write.spends!.hash));
  return (write) => batches.submit(write);
}
