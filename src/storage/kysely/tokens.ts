import type { Kysely, Transaction } from 'kysely';
import type { AccessToken, RefreshToken } from '../records.ts';
import type { AccessTokenRow, Database, RefreshTokenRow } from '../schema.ts';
import type { IssuedTokens, TokenStore } from '../stores.ts';
import { changedRows, scopeFromColumn, scopeToColumn } from './columns.ts';
import { purgeExpired, type PurgeCounts } from './purge.ts';

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

async function insertIssued(trx: Transaction<Database>, { access, refresh }: IssuedTokens, usedAt: number): Promise<void> {
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
  await trx.updateTable('grants')
    .set({ last_used_at: usedAt })
    .where('id', '=', access.grantId)
    .execute();
}

export class KyselyTokenStore implements TokenStore {
  constructor(private readonly db: Kysely<Database>) {}

  async saveTokens(tokens: IssuedTokens): Promise<void> {
    await this.db.transaction().execute((trx) => insertIssued(trx, tokens, tokens.access.createdAt));
  }

  async findAccessToken(tokenHash: string): Promise<AccessToken | undefined> {
    const row = await this.db.selectFrom('access_tokens').selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
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
    return this.db.transaction().execute(async (trx) => {
      const marked = await trx.updateTable('refresh_tokens')
        .set({ rotated_at: now })
        .where('token_hash', '=', previousHash)
        .where('rotated_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (changedRows(marked) === 0) return false;
      await insertIssued(trx, next, now);
      return true;
    });
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
