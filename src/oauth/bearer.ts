// RFC 6750 bearer token verification for the API and token info.
import type { Clock } from '../platform/clock.ts';
import { hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { AccessToken } from '../storage/records.ts';
import type { TokenStore } from '../storage/stores.ts';
import { OAuthError } from './errors.ts';

export interface BearerDeps {
  tokens: Pick<TokenStore, 'findAccessToken'>;
  clock: Clock;
}

/** Returns the live access token, or throws invalid_token (RFC 6750 §3.1). */
export async function verifyAccessToken(token: string, deps: BearerDeps): Promise<AccessToken> {
  // The checksum refuses garbage without touching the database.
  if (!isWellFormedCredential('accessToken', token)) throw new OAuthError('invalid_token', 'The access token is malformed');
  const stored = await deps.tokens.findAccessToken(hashCredential(token));
  if (stored === undefined) throw new OAuthError('invalid_token', 'The access token is unknown');
  if (stored.revokedAt !== null) throw new OAuthError('invalid_token', 'The access token was revoked');
  if (stored.expiresAt <= deps.clock.now()) throw new OAuthError('invalid_token', 'The access token expired');
  return stored;
}

export function requireScope(token: AccessToken, scope: string): void {
  if (!token.scope.includes(scope)) throw new OAuthError('insufficient_scope', `This request needs the '${scope}' scope`);
}
