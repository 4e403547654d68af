import type { Kysely, WhereInterface } from 'kysely';
import type { Pause } from '../../platform/pacer.ts';
import type { AccessToken, NewAuditEvent, RefreshToken } from '../records.ts';
import type { AccessTokenRow, Database, RefreshTokenRow, StorageKind } from '../schema.ts';
import type { IssuedTokens, TokenStore } from '../stores.ts';
import { lookingUpByKey } from './lookup-batches.ts';
import { type PreparedQuery, everyColumn, prepared } from './prepared.ts';
import { scopeFromColumn, scopeToColumn } from './columns.ts';
import type { TokenIssue } from './token-writes.ts';
import { purgeExpired, yieldToRequests, type PurgeCounts } from './purge.ts';
import { recordIfChanged } from './audit.ts';

/** The columns access and refresh tokens share: an AccessToken record's. */
const TOKEN_COLUMNS = [
  'token_hash', 'grant_id', 'application_id', 'user_id', 'scope', 'created_at', 'expires_at', 'revoked_at', 'origin_code_hash',
] as const;
export const ACCESS_TOKEN_COLUMNS = everyColumn<AccessTokenRow>()([...TOKEN_COLUMNS, 'refresh_token_hash']);
export const REFRESH_TOKEN_COLUMNS = everyColumn<RefreshTokenRow>()([...TOKEN_COLUMNS, 'rotated_at']);

/**
 * An access-token query narrowed to those issued alone, without a refresh token
 * (client_credentials', and any from before migration 0010): the others end with
 * their refresh token. A query by grant must state this to be served by the
 * partial index by grant, which holds only these.
 */
export function issuedAlone<Query extends WhereInterface<Database, 'access_tokens'>>(query: Query): Query {
  return query.where('refresh_token_hash', 'is', null) as Query;
}

/** What an access token's look-up reads: its record's columns, revoked_at its refresh token's when it has none of its own. */
type AccessTokenRead = Omit<AccessTokenRow, 'refresh_token_hash'>;

function toAccessToken(row: AccessTokenRead): AccessToken {
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

/** The columns an AccessToken record gives either table's row. */
type TokenColumnsRow = Pick<AccessTokenRow & RefreshTokenRow, (typeof TOKEN_COLUMNS)[number]>;

function tokenColumns(token: AccessToken): TokenColumnsRow {
  return {
    token_hash: token.tokenHash,
    grant_id: token.grantId,
    application_id: token.applicationId,
    user_id: token.userId,
    scope: scopeToColumn(token.scope),
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    revoked_at: token.revokedAt,
    origin_code_hash: token.originCodeHash,
  };
}

// Each row adds its own column by a store on the shared columns' object, not a
// spread, for the reason toRefreshToken gives. What each returns is checked to be
// a whole row: a column added to a table must be set here.

/** An access token's row, bound to the refresh token issued beside it, if any (migration 0010). */
export function accessTokenRow(token: AccessToken, refreshTokenHash: string | null): AccessTokenRow {
  const row = tokenColumns(token) as TokenColumnsRow & Pick<AccessTokenRow, 'refresh_token_hash'>;
  row.refresh_token_hash = refreshTokenHash;
  return row;
}

export function refreshTokenRow(token: RefreshToken): RefreshTokenRow {
  const row = tokenColumns(token) as TokenColumnsRow & Pick<RefreshTokenRow, 'rotated_at'>;
  row.rotated_at = token.rotatedAt;
  return row;
}

export class KyselyTokenStore implements TokenStore {
  private readonly selectAccessToken: PreparedQuery<AccessTokenRead, [tokenHash: string]>;
  private readonly selectRefreshToken: PreparedQuery<RefreshTokenRow, [tokenHash: string]>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly kind: StorageKind,
    private readonly issue: TokenIssue,
  ) {
    // An access token bound to a refresh token (migration 0010) is revoked with it,
    // and gone with it: one whose refresh token is missing is not found. Nor is one
    // whose grant is gone, since no foreign key deletes it with its grant any more.
    this.selectAccessToken = prepared(db, (tokenHash: string) => db.selectFrom('access_tokens as a')
      .innerJoin('grants as g', 'g.id', 'a.grant_id')
      .leftJoin('refresh_tokens as r', 'r.token_hash', 'a.refresh_token_hash')
      .select([
        'a.token_hash', 'a.grant_id', 'a.application_id', 'a.user_id', 'a.scope', 'a.created_at', 'a.expires_at',
        (eb) => eb.fn.coalesce('a.revoked_at', 'r.revoked_at').as('revoked_at'), 'a.origin_code_hash',
      ])
      .where('a.token_hash', '=', tokenHash)
      .where((eb) => eb.or([eb('a.refresh_token_hash', 'is', null), eb('r.token_hash', 'is not', null)])));
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

  // The cut-off alone decides: rows expired or revoked before it go.
  purgeExpired(_now: number, olderThan: number, betweenBatches: Pause = yieldToRequests): Promise<PurgeCounts> {
    return purgeExpired(this.db, this.kind, olderThan, betweenBatches);
  }
}
