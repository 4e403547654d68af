// What a token looks like is decided here; where it lives is the TokenStore's business.
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { generateCredential, hashCredential } from '../platform/secrets.ts';
import type { IssuedTokens } from '../domain/records.ts';
import { lifetimes } from './lifetimes.ts';
import { formatScope, sameScope } from './scopes.ts';

export interface TokenMinter {
  clock: Clock;
  random: RandomSource;
}

export interface TokenSubject {
  grantId: number;
  applicationId: number;
  userId: number;
  scope: string[];
  /** The authorization code the tokens descend from; null for client_credentials. */
  originCodeHash: string | null;
  /** The RFC 8707 resource both tokens are for; null when none was asked (refresh-token.ts may change the refresh token's). */
  resource: string | null;
}

export interface MintedTokens {
  accessToken: string;
  refreshToken?: string;
  records: IssuedTokens;
  issuedAt: number;
}

/** The body of a successful token response (spec §2, DESIGN §2). */
export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token?: string;
  created_at: number;
  scope?: string;
}

export function mintTokens(deps: TokenMinter, subject: TokenSubject, withRefreshToken: boolean): MintedTokens {
  const issuedAt = deps.clock.now();
  const accessToken = generateCredential('accessToken', deps.random, issuedAt);
  const { grantId, applicationId, userId, scope, originCodeHash, resource } = subject;
  const records: IssuedTokens = {
    access: {
      tokenHash: hashCredential(accessToken),
      grantId, applicationId, userId, scope, originCodeHash, resource,
      createdAt: issuedAt,
      expiresAt: issuedAt + lifetimes.accessToken,
      revokedAt: null,
    },
  };
  if (!withRefreshToken) return { accessToken, records, issuedAt };

  const refreshToken = generateCredential('refreshToken', deps.random, issuedAt);
  records.refresh = {
    tokenHash: hashCredential(refreshToken),
    grantId, applicationId, userId, scope, originCodeHash, resource,
    createdAt: issuedAt,
    expiresAt: issuedAt + lifetimes.refreshTokenIdle,
    rotatedAt: null,
    revokedAt: null,
  };
  return { accessToken, refreshToken, records, issuedAt };
}

/** DESIGN §2: `scope` appears only when the granted scope differs from what was asked. */
export function tokenResponse(minted: MintedTokens, requestedScope: string[]): TokenResponse {
  const body: TokenResponse = {
    access_token: minted.accessToken,
    token_type: 'bearer',
    expires_in: lifetimes.accessToken / 1000,
    created_at: Math.floor(minted.issuedAt / 1000),
  };
  if (minted.refreshToken !== undefined) body.refresh_token = minted.refreshToken;
  const granted = minted.records.access.scope;
  if (!sameScope(granted, requestedScope)) body.scope = formatScope(granted);
  return body;
}
