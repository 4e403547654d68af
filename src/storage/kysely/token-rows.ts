// Access and refresh tokens as records and as rows.
import type { AccessToken, RefreshToken } from '../../domain/records.ts';
import type { WhereInterface } from 'kysely';
import type { AccessTokenRow, Database, RefreshTokenRow } from '../schema.ts';
import { everyColumn, fieldsOf, scopeFromColumn, scopeToColumn } from './columns.ts';

/** The columns access and refresh tokens share: an AccessToken record's. */
const TOKEN_COLUMNS = [
  'token_hash', 'grant_id', 'application_id', 'user_id', 'scope', 'created_at', 'expires_at', 'revoked_at', 'origin_code_hash', 'resource',
] as const;
export const ACCESS_TOKEN_COLUMNS = everyColumn<AccessTokenRow>()([...TOKEN_COLUMNS, 'refresh_token_hash']);
export const REFRESH_TOKEN_COLUMNS = everyColumn<RefreshTokenRow>()([...TOKEN_COLUMNS, 'rotated_at']);

type SharedColumns = Pick<AccessTokenRow, (typeof TOKEN_COLUMNS)[number]>;

/** An access token's record from its row, or with `rotated_at` a refresh token's. */
export function toToken<Row extends SharedColumns>(row: Row) {
  return { ...fieldsOf(row), scope: scopeFromColumn(row.scope) };
}

/** Written out field by field: every token issued runs through here. */
function sharedColumns(token: AccessToken): SharedColumns {
  const { tokenHash: token_hash, grantId: grant_id, applicationId: application_id, userId: user_id, scope } = token;
  const { createdAt: created_at, expiresAt: expires_at, revokedAt: revoked_at, originCodeHash: origin_code_hash, resource } = token;
  return { token_hash, grant_id, application_id, user_id, scope: scopeToColumn(scope), created_at, expires_at, revoked_at, origin_code_hash, resource };
}

/** An access token's row, bound to the refresh token issued beside it, if any (migration 0010). */
export function accessTokenRow(token: AccessToken, refreshTokenHash: string | null): AccessTokenRow {
  return { ...sharedColumns(token), refresh_token_hash: refreshTokenHash };
}

export function refreshTokenRow(token: RefreshToken): RefreshTokenRow {
  return { ...sharedColumns(token), rotated_at: token.rotatedAt };
}

/**
 * An access-token query narrowed to those issued alone, without a refresh token
 * (client_credentials', and any from before migration 0010): the others end with
 * their refresh token. A query by grant must state this to use the partial index by grant.
 */
export function issuedAlone<Query extends WhereInterface<Database, 'access_tokens'>>(query: Query): Query {
  return query.where('refresh_token_hash', 'is', null) as Query;
}
