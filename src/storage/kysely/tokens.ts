import type { Kysely } from 'kysely';
import type { AccessToken, RefreshToken } from '../records.ts';
import type { AccessTokenRow, Database, RefreshTokenRow } from '../schema.ts';
import type { IssuedTokens, TokenStore } from '../stores.ts';
import { type PreparedQuery, prepared } from './prepared.ts';
import { changedRows, scopeFromColumn } from './columns.ts';
import { type TokenWrites, compileTokenWrites } from './token-writes.ts';
import { purgeExpired, type PurgeCounts } from './purge.ts';
import { type RunInTransaction, separateTransactions } from './transactions.ts';

function toAccessToken(row: AccessTokenRow): AccessToken {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    applicationId: row.application_id,
    userId: row.user_id,
    scope: scopeFromColumn(row.scope),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function toRefreshToken(row: RefreshTokenRow): RefreshToken {
  return { ...toAccessToken(row), rotatedAt: row.rotated_at };
}

/** Thrown inside a transaction to roll it back when a condition fails after a write. */
class Abandon extends Error {}

export class KyselyTokenStore implements TokenStore {
  private readonly selectAccessToken: PreparedQuery<AccessTokenRow, [tokenHash: string]>;
  private readonly selectRefreshToken: PreparedQuery<RefreshTokenRow, [tokenHash: string]>;
  private readonly writes: TokenWrites;

  constructor(private readonly db: Kysely<Database>, private readonly inTransaction: RunInTransaction = separateTransactions(db)) {
    this.selectAccessToken = prepared(db, (tokenHash: string) =>
    db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash));
    this.selectRefreshToken = prepared(db, (tokenHash: string) =>
    db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash));
    this.writes = compileTokenWrites(db);
  }

  async saveTokens(tokens: IssuedTokens): Promise<boolean> {
    return this.inTransaction(async (trx) => {
      if (!(await this.writes.claimLiveGrant(trx, tokens.access.grantId, tokens.access.createdAt))) return false;
      await this.writes.insertIssued(trx, tokens);
      return true;
    });
  }

  async findAccessToken(tokenHash: string): Promise<AccessToken | undefined> {
    const [row] = await this.selectAccessToken(tokenHash);
    return row && toAccessToken(row);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshToken | undefined> {
    const [row] = await this.selectRefreshToken(tokenHash);
    return row && toRefreshToken(row);
  }

  // RFC 9700 §4.14.2 rotation. The conditional UPDATE decides the race: on PostgreSQL
  // concurrent updaters block on the row lock and, under READ COMMITTED, re-check the
  // WHERE clause once the winner commits, so they match nothing; SQLite serializes writers.
  async rotateRefreshToken(previousHash: string, next: IssuedTokens, now: number): Promise<boolean> {
    try {
      return await this.inTransaction(async (trx) => {
        if (!(await this.writes.claimLiveGrant(trx, next.access.grantId, now))) return false;
        // The grant update must not stand alone: roll it back with the lost race.
        if (!(await this.writes.markRotated(trx, previousHash, now))) throw new Abandon();
        await this.writes.insertIssued(trx, next);
        return true;
      });
    } catch (error) {
      if (error instanceof Abandon) return false;
      throw error;
    }
  }

  async revokeAccessToken(tokenHash: string, now: number): Promise<boolean> {
    const result = await this.db.updateTable('access_tokens')
      .set({ revoked_at: now })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return changedRows(result) > 0;
  }

  // The cut-off alone decides: rows expired, revoked, rotated or consumed before it go.
  purgeExpired(_now: number, olderThan: number): Promise<PurgeCounts> {
    return purgeExpired(this.db, olderThan);
  }
}
