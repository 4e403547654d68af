import type { Kysely } from 'kysely';
import type { Pause } from '../../platform/pacer.ts';
import type { AccessToken, NewAuditEvent, RefreshToken } from '../records.ts';
import type { AccessTokenRow, Database, RefreshTokenRow, StorageKind } from '../schema.ts';
import type { IssuedTokens, TokenStore } from '../stores.ts';
import { lookingUpByKey } from './lookup-batches.ts';
import { type PreparedQuery, everyColumn, prepared } from './prepared.ts';
import { scopeFromColumn } from './columns.ts';
import type { TokenIssue } from './token-writes.ts';
import { purgeExpired, yieldToRequests, type PurgeCounts } from './purge.ts';
import { recordIfChanged } from './audit.ts';

export const ACCESS_TOKEN_COLUMNS = everyColumn<AccessTokenRow>()([
  'token_hash', 'grant_id', 'application_id', 'user_id', 'scope', 'created_at', 'expires_at', 'revoked_at', 'origin_code_hash',
]);
export const REFRESH_TOKEN_COLUMNS = everyColumn<RefreshTokenRow>()([...ACCESS_TOKEN_COLUMNS, 'rotated_at']);

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
    originCodeHash: row.origin_code_hash,
  };
}

// Not `{ ...toAccessToken(row), rotatedAt }`: V8 defined the added member on the
// copy the slow way, about 5,700 instructions a refresh; a store on the record
// itself takes one cached map transition.
function toRefreshToken(row: RefreshTokenRow): RefreshToken {
  const token: AccessToken & Partial<RefreshToken> = toAccessToken(row);
  token.rotatedAt = row.rotated_at;
  return token as RefreshToken;
}

export class KyselyTokenStore implements TokenStore {
  private readonly selectAccessToken: PreparedQuery<AccessTokenRow, [tokenHash: string]>;
  private readonly selectRefreshToken: PreparedQuery<RefreshTokenRow, [tokenHash: string]>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly kind: StorageKind,
    private readonly issue: TokenIssue,
  ) {
    this.selectAccessToken = prepared(db, (tokenHash: string) =>
    db.selectFrom('access_tokens').select(ACCESS_TOKEN_COLUMNS).where('token_hash', '=', tokenHash));
    this.selectRefreshToken = lookingUpByKey(db, kind, (tokenHash) =>
      db.selectFrom('refresh_tokens').select(REFRESH_TOKEN_COLUMNS).where('token_hash', '=', tokenHash), (row) => row.token_hash);
  }

  saveTokens(tokens: IssuedTokens): Promise<boolean> {
    return this.issue.save(tokens);
  }

  async findAccessToken(tokenHash: string): Promise<AccessToken | undefined> {
    const [row] = await this.selectAccessToken(tokenHash);
    return row && toAccessToken(row);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshToken | undefined> {
    const [row] = await this.selectRefreshToken(tokenHash);
    return row && toRefreshToken(row);
  }

  // RFC 9700 §4.14.2 rotation: exactly one of the requests presenting the same
  // refresh token wins (token-writes.ts, token-exchanges-postgres.ts say how).
  rotateRefreshToken(previousHash: string, next: IssuedTokens, now: number): Promise<boolean> {
    return this.issue.rotate(previousHash, next, now);
  }

  // RFC 6749 §4.1.2: of the requests presenting one code, exactly one spends it,
  // in the transaction that saves its tokens.
  redeemAuthorizationCode(codeHash: string, tokens: IssuedTokens, now: number): Promise<boolean> {
    return this.issue.redeem(codeHash, tokens, now);
  }

  revokeAccessToken(tokenHash: string, now: number, event: NewAuditEvent): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx.updateTable('access_tokens')
        .set({ revoked_at: now })
        .where('token_hash', '=', tokenHash)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return recordIfChanged(trx, result, event);
    });
  }

  // The cut-off alone decides: rows expired, revoked, rotated or consumed before it go.
  purgeExpired(_now: number, olderThan: number, betweenBatches: Pause = yieldToRequests): Promise<PurgeCounts> {
    return purgeExpired(this.db, this.kind, olderThan, betweenBatches);
  }
}
