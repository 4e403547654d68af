// How a token issue reaches the database, and the writes it makes inside a
// transaction, built and compiled once per database (prepared.ts says why).
import type { Kysely } from 'kysely';
import type { StatementExecutor } from '../direct-statements.ts';
import type { Database } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { preparedStatement } from './prepared.ts';
import { auditEventRow } from './audit.ts';
import { changedRows, scopeToColumn } from './columns.ts';
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

/** Thrown inside a transaction to roll it back when a condition fails after a write. */
class Abandon extends Error {}

/** Each issue as a transaction of the statements below (on SQLite, inside a group commit). */
export function issueInTransactions(db: Kysely<Database>, inTransaction: RunInTransaction): TokenIssue {
  const writes = compileTokenWrites(db);
  // The conditional UPDATE that spends the credential decides the race: SQLite runs
  // one writer at a time; on PostgreSQL the loser waits for the winner's row lock
  // and, under READ COMMITTED, re-checks the WHERE clause on the spent row, matching nothing.
  async function inExchangeFor(spend: (trx: StatementExecutor) => Promise<boolean>, next: IssuedTokens, now: number) {
    try {
      return await inTransaction(async (trx) => {
        if (!(await writes.claimLiveGrant(trx, next.access.grantId, now))) return false;
        // The grant update must not stand alone: roll it back with the lost race.
        if (!(await spend(trx))) throw new Abandon();
        await writes.insertIssued(trx, next);
        return true;
      });
    } catch (error) {
      if (error instanceof Abandon) return false;
      throw error;
    }
  }
  return {
    save: (tokens) => inTransaction(async (trx) => {
      if (!(await writes.claimLiveGrant(trx, tokens.access.grantId, tokens.access.createdAt))) return false;
      await writes.insertIssued(trx, tokens);
      return true;
    }),
    rotate: (previousHash, next, now) => inExchangeFor((trx) => writes.markRotated(trx, previousHash, now), next, now),
    // The code is spent in the transaction that saves its tokens: a second redemption
    // that loses the race and revokes what the code issued (a replay) finds them there.
    redeem: (codeHash, tokens, now) => inExchangeFor((trx) => writes.markConsumed(trx, codeHash, now), tokens, now),
  };
}

interface TokenWrites {
  /**
   * Marks the grant used only while it is live. Taking the grant row first, as
   * revoking a grant does, keeps one lock order (no deadlock on PostgreSQL) and means a
   * revocation that commits first is seen, so no live token lands on a dead grant.
   */
  claimLiveGrant(trx: StatementExecutor, grantId: number, usedAt: number): Promise<boolean>;
  /** Marks a refresh token rotated unless it already was, or was revoked. */
  markRotated(trx: StatementExecutor, tokenHash: string, rotatedAt: number): Promise<boolean>;
  /** Marks an authorization code used unless it already was (RFC 6749 §4.1.2: single use). */
  markConsumed(trx: StatementExecutor, codeHash: string, consumedAt: number): Promise<boolean>;
  /** The access token, the refresh token and the audit event, whichever are present. */
  insertIssued(trx: StatementExecutor, tokens: IssuedTokens): Promise<void>;
}

function compileTokenWrites(db: Kysely<Database>): TokenWrites {
  const claim = preparedStatement((grantId: number, usedAt: number) => db.updateTable('grants')
    .set({ last_used_at: usedAt })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null));
  const rotate = preparedStatement((tokenHash: string, rotatedAt: number) => db.updateTable('refresh_tokens')
    .set({ rotated_at: rotatedAt })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null));
  const consume = preparedStatement((codeHash: string, consumedAt: number) => db.updateTable('authorization_codes')
    .set({ consumed_at: consumedAt })
    .where('code_hash', '=', codeHash)
    .where('consumed_at', 'is', null));
  const insertAccess = preparedStatement((
    tokenHash: string, grantId: number, applicationId: number, userId: number,
    scope: string, createdAt: number, expiresAt: number, revokedAt: number | null, originCodeHash: string | null,
  ) => db.insertInto('access_tokens').values({
    token_hash: tokenHash, grant_id: grantId, application_id: applicationId, user_id: userId,
    scope, created_at: createdAt, expires_at: expiresAt, revoked_at: revokedAt, origin_code_hash: originCodeHash,
  }));
  const insertRefresh = preparedStatement((
    tokenHash: string, grantId: number, applicationId: number, userId: number,
    scope: string, createdAt: number, expiresAt: number, rotatedAt: number | null, revokedAt: number | null, originCodeHash: string | null,
  ) => db.insertInto('refresh_tokens').values({
    token_hash: tokenHash, grant_id: grantId, application_id: applicationId, user_id: userId,
    scope, created_at: createdAt, expires_at: expiresAt, rotated_at: rotatedAt, revoked_at: revokedAt, origin_code_hash: originCodeHash,
  }));
  const insertEvent = preparedStatement((
    type: string, userId: number | null, applicationId: number | null, ip: string | null, detail: string, createdAt: number,
  ) => db.insertInto('audit_events').values({ type, user_id: userId, application_id: applicationId, ip, detail, created_at: createdAt }));

  return {
    async claimLiveGrant(trx, grantId, usedAt) {
      return changedRows(await claim(trx, grantId, usedAt)) > 0;
    },
    async markRotated(trx, tokenHash, rotatedAt) {
      return changedRows(await rotate(trx, tokenHash, rotatedAt)) > 0;
    },
    async markConsumed(trx, codeHash, consumedAt) {
      return changedRows(await consume(trx, codeHash, consumedAt)) > 0;
    },
    async insertIssued(trx, { access, refresh, event }) {
      await insertAccess(trx, access.tokenHash, access.grantId, access.applicationId, access.userId,
        scopeToColumn(access.scope), access.createdAt, access.expiresAt, access.revokedAt, access.originCodeHash);
      if (refresh) {
        await insertRefresh(trx, refresh.tokenHash, refresh.grantId, refresh.applicationId, refresh.userId,
          scopeToColumn(refresh.scope), refresh.createdAt, refresh.expiresAt, refresh.rotatedAt, refresh.revokedAt, refresh.originCodeHash);
      }
      if (event) {
        const row = auditEventRow(event);
        await insertEvent(trx, row.type, row.user_id, row.application_id, row.ip, row.detail, row.created_at);
      }
    },
  };
}
