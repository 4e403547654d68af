// How a token issue reaches the database. On SQLite each is a transaction of the
// writes below, built and compiled once per database (prepared.ts says why), inside
// the group commit; PostgreSQL's go in batches (token-issue-postgres.ts).
import { type Kysely, sql } from 'kysely';
import type { StatementExecutor } from '../direct-statements.ts';
import type { AccessTokenRow, AuditEventRow, Database, RefreshTokenRow } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { preparedStatement } from './prepared.ts';
import { valuesInColumnOrder } from './row-writers.ts';
import { AUDIT_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { changedRows } from './columns.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS, accessTokenRow, refreshTokenRow } from './tokens.ts';
import type { RunInTransaction } from './transactions.ts';

/** Both operations are all or nothing: when one answers false, it wrote nothing. */
export interface TokenIssue {
  /** The tokens and their audit event, while their grant is live. */
  save(tokens: IssuedTokens): Promise<boolean>;
  /** The same, in exchange for the refresh token `previousHash`, unless another request rotated it first. */
  rotate(previousHash: string, next: IssuedTokens, now: number): Promise<boolean>;
  /** The same, in exchange for the authorization code `codeHash`, unless another request redeemed it first. */
  redeem(codeHash: string, tokens: IssuedTokens, now: number): Promise<boolean>;
}

/**
 * How stale a grant's last use may be before an issue records it again: the
 * Connections page shows it to the minute, and writing it at every issue kept a
 * page of the grants table in every SQLite commit and, on PostgreSQL, made every
 * issue of a client wait for the one before it (docs/performance.md).
 */
export const LAST_USE_RESOLUTION_MS = 1000;

/** Grants whose last written use this process remembers, at most. */
const MAX_REMEMBERED_LAST_USES = 10_000;

/** Thrown inside a transaction to roll it back when a condition fails after a write. */
class Abandon extends Error {}

/**
 * SQLite's issues. SQLite runs one writer at a time, so a grant found live by the
 * access token's INSERT stays live until the commit: a revocation commits wholly
 * before the issue, and the INSERT writes nothing, or wholly after, and revokes the
 * token with the rest. The last use this process wrote of each grant is remembered
 * once committed, so that most issues make no statement to learn it is fresh.
 */
export function issueInTransactions(db: Kysely<Database>, inTransaction: RunInTransaction): TokenIssue {
  const writes = compileTokenWrites(db);
  const lastUses = new Map<number, number>();
  async function issue(tokens: IssuedTokens, usedAt: number, spend?: (trx: StatementExecutor) => Promise<boolean>): Promise<boolean> {
    const { grantId } = tokens.access;
    const lastUseWritten = await inTransaction(async (trx) => {
      if (!(await writes.insertAccessWhileGrantLive(trx, tokens))) return undefined;
      // The access token must not stand alone: roll it back with the lost race.
      if (spend !== undefined && !(await spend(trx))) throw new Abandon();
      await writes.insertRest(trx, tokens);
      if ((lastUses.get(grantId) ?? -Infinity) > usedAt - LAST_USE_RESOLUTION_MS) return null;
      return (await writes.touchLastUse(trx, grantId, usedAt)) ? usedAt : null;
    });
    if (lastUseWritten === undefined) return false;
    if (lastUseWritten !== null) {
      // A second on, an entry saves nothing: forgetting them all now and then costs a write each.
      if (lastUses.size >= MAX_REMEMBERED_LAST_USES) lastUses.clear();
      lastUses.set(grantId, Math.max(lastUseWritten, lastUses.get(grantId) ?? lastUseWritten));
    }
    return true;
  }
  // The conditional UPDATE that spends the credential decides the race: SQLite runs
  // one writer at a time, and the second to spend it matches nothing.
  async function inExchangeFor(spend: (trx: StatementExecutor) => Promise<boolean>, next: IssuedTokens, now: number) {
    try {
      return await issue(next, now, spend);
    } catch (error) {
      if (error instanceof Abandon) return false;
      throw error;
    }
  }
  return {
    save: (tokens) => issue(tokens, tokens.access.createdAt),
    rotate: (previousHash, next, now) => inExchangeFor((trx) => writes.markRotated(trx, previousHash, now), next, now),
    // The code is spent in the transaction that saves its tokens: a second redemption
    // that loses the race and revokes what the code issued (a replay) finds them there.
    redeem: (codeHash, tokens, now) => inExchangeFor((trx) => writes.markConsumed(trx, codeHash, now), tokens, now),
  };
}

interface TokenWrites {
  /**
   * The access token, only while its grant is live; false, having written nothing,
   * when it is not. One statement where an UPDATE claiming the grant row first made
   * two: 1.02-1.07x the issues a second (docs/performance.md).
   */
  insertAccessWhileGrantLive(trx: StatementExecutor, tokens: IssuedTokens): Promise<boolean>;
  /** Marks a refresh token rotated unless it already was, or was revoked. */
  markRotated(trx: StatementExecutor, tokenHash: string, rotatedAt: number): Promise<boolean>;
  /** Marks an authorization code used unless it already was (RFC 6749 §4.1.2: single use). */
  markConsumed(trx: StatementExecutor, codeHash: string, consumedAt: number): Promise<boolean>;
  /** The refresh token and the audit event, whichever are present. */
  insertRest(trx: StatementExecutor, tokens: IssuedTokens): Promise<void>;
  /** Writes the grant's last use unless what it holds is fresh; true when it wrote. */
  touchLastUse(trx: StatementExecutor, grantId: number, usedAt: number): Promise<boolean>;
}

/**
 * A one-row INSERT into `table` of each of `columns`, compiled once (prepared.ts
 * says why) and run with a row's values in their order. With `grantOf`, it
 * inserts nothing unless the row's grant is live.
 */
function rowInsert<Row>(
  db: Kysely<Database>, table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly (keyof Row & string)[],
  grantOf?: (row: Row) => number,
) {
  const values = sql.join(columns.map(() => sql.val(null)));
  const rows = grantOf === undefined
    ? sql`values (${values})`
    : sql`select ${values} where exists (select 1 from grants where id = ${null} and revoked_at is null)`;
  const compiled = sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) ${rows}`.compile(db);
  if (compiled.parameters.length !== columns.length + (grantOf === undefined ? 0 : 1)) {
    throw new Error(`a row insert does not take one parameter a column: ${compiled.sql}`);
  }
  const { query, queryId, sql: text } = compiled;
  const valuesOf = valuesInColumnOrder(columns);
  return (trx: StatementExecutor, row: Row) => {
    const parameters = valuesOf(row);
    if (grantOf !== undefined) parameters.push(grantOf(row));
    return trx.executeQuery({ query, queryId, sql: text, parameters });
  };
}

function compileTokenWrites(db: Kysely<Database>): TokenWrites {
  const insertAccess = rowInsert<AccessTokenRow>(db, 'access_tokens', ACCESS_TOKEN_COLUMNS, (row) => row.grant_id);
  const insertRefresh = rowInsert<RefreshTokenRow>(db, 'refresh_tokens', REFRESH_TOKEN_COLUMNS);
  const insertEvent = rowInsert<Omit<AuditEventRow, 'id'>>(db, 'audit_events', AUDIT_EVENT_COLUMNS);
  const rotate = preparedStatement((tokenHash: string, rotatedAt: number) => db.updateTable('refresh_tokens')
    .set({ rotated_at: rotatedAt })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null));
  const consume = preparedStatement((codeHash: string, consumedAt: number) => db.updateTable('authorization_codes')
    .set({ consumed_at: consumedAt })
    .where('code_hash', '=', codeHash)
    .where('consumed_at', 'is', null));
  const touch = preparedStatement((grantId: number, usedAt: number, staleAt: number) => db.updateTable('grants')
    .set({ last_used_at: usedAt })
    .where('id', '=', grantId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleAt)])));

  return {
    async insertAccessWhileGrantLive(trx, { access, refresh }) {
      // Bound to the refresh token issued beside it (migration 0010), inserted next in this transaction.
      return changedRows(await insertAccess(trx, accessTokenRow(access, refresh?.tokenHash ?? null))) > 0;
    },
    async markRotated(trx, tokenHash, rotatedAt) {
      return changedRows(await rotate(trx, tokenHash, rotatedAt)) > 0;
    },
    async markConsumed(trx, codeHash, consumedAt) {
      return changedRows(await consume(trx, codeHash, consumedAt)) > 0;
    },
    async insertRest(trx, { refresh, event }) {
      if (refresh) await insertRefresh(trx, refreshTokenRow(refresh));
      if (event) await insertEvent(trx, auditEventRow(event));
    },
    async touchLastUse(trx, grantId, usedAt) {
      return changedRows(await touch(trx, grantId, usedAt, usedAt - LAST_USE_RESOLUTION_MS)) > 0;
    },
  };
}
