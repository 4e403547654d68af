import type { Kysely, Transaction } from 'kysely';
import type { AccessToken, RefreshToken } from '../records.ts';
import type { AccessTokenRow, Database, RefreshTokenRow } from '../schema.ts';
import type { IssuedTokens, TokenStore } from '../stores.ts';
import { type PreparedQuery, prepared } from './prepared.ts';
import { auditEventRow } from './audit.ts';
import { changedRows, scopeFromColumn, scopeToColumn } from './columns.ts';
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

/**
 * Marks the grant used only while it is live. Taking the grant row first, as
 * revokeGrant does, keeps one lock order (no deadlock on PostgreSQL) and means a
 * revocation that commits first is seen, so no live token lands on a dead grant.
 */
async function claimLiveGrant(trx: Transaction<Database>, grantId: number, usedAt: number): Promise<boolean> {
  const result = await trx.updateTable('grants')
    .set({ last_used_at: usedAt })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return changedRows(result) > 0;
}

/** Thrown inside a transaction to roll it back when a condition fails after a write. */
class Abandon extends Error {}

async function insertIssued(trx: Transaction<Database>, { access, refresh, event }: IssuedTokens): Promise<void> {
  await trx.insertInto('access_tokens')
    .values({
      token_hash: access.tokenHash,
      grant_id: access.grantId,
      application_id: access.applicationId,
      user_id: access.userId,
      scope: scopeToColumn(access.scope),
      created_at: access.createdAt,
      expires_at: access.expiresAt,
      revoked_at: access.revokedAt,
    })
    .execute();
  if (refresh) {
    await trx.insertInto('refresh_tokens')
      .values({
        token_hash: refresh.tokenHash,
        grant_id: refresh.grantId,
        application_id: refresh.applicationId,
        user_id: refresh.userId,
        scope: scopeToColumn(refresh.scope),
        created_at: refresh.createdAt,
        expires_at: refresh.expiresAt,
        rotated_at: refresh.rotatedAt,
        revoked_at: refresh.revokedAt,
      })
      .execute();
  }
  if (event) await trx.insertInto('audit_events').values(auditEventRow(event)).execute();
}

export class KyselyTokenStore implements TokenStore {
  private readonly selectAccessToken: PreparedQuery<AccessTokenRow, [tokenHash: string]>;

  constructor(private readonly db: Kysely<Database>, private readonly inTransaction: RunInTransaction = separateTransactions(db)) {
    this.selectAccessToken = prepared(db, (tokenHash: string) =>
    db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash));
  }

  async saveTokens(tokens: IssuedTokens): Promise<boolean> {
    return this.inTransaction(async (trx) => {
      if (!(await claimLiveGrant(trx, tokens.access.grantId, tokens.access.createdAt))) return false;
      await insertIssued(trx, tokens);
      return true;
    });
  }

  async findAccessToken(tokenHash: string): Promise<AccessToken | undefined> {
    const [row] = await this.selectAccessToken(tokenHash);
    return row && toAccessToken(row);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshToken | undefined> {
    const row = await this.db.selectFrom('refresh_tokens').selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && toRefreshToken(row);
  }

  // RFC 9700 §4.14.2 rotation. The conditional UPDATE decides the race: on PostgreSQL
  // concurrent updaters block on the row lock and, under READ COMMITTED, re-check the
  // WHERE clause once the winner commits, so they match nothing; SQLite serializes writers.
  async rotateRefreshToken(previousHash: string, next: IssuedTokens, now: number): Promise<boolean> {
    try {
      return await this.inTransaction(async (trx) => {
        if (!(await claimLiveGrant(trx, next.access.grantId, now))) return false;
        const marked = await trx.updateTable('refresh_tokens')
          .set({ rotated_at: now })
          .where('token_hash', '=', previousHash)
          .where('rotated_at', 'is', null)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        // The grant update must not stand alone: roll it back with the lost race.
        if (changedRows(marked) === 0) throw new Abandon();
        await insertIssued(trx, next);
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
