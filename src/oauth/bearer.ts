// RFC 6750 bearer token verification for the API and token info.
import type { Clock } from '../platform/clock.ts';
import { hasCredentialShape, hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { AccessToken } from '../domain/records.ts';
import type { TokenStore } from '../storage/stores.ts';
import { OAuthError } from './errors.ts';
import { type ProtectedResource, isAudience } from './resources.ts';

export interface BearerDeps {
  tokens: Pick<TokenStore, 'findAccessToken' | 'recallAccessToken'>;
  clock: Clock;
}

const malformedToken = () => new OAuthError('invalid_token', 'The access token is malformed');

/** Returns the live access token, or throws invalid_token (RFC 6750 §3.1). */
export async function verifyAccessToken(token: string, deps: BearerDeps): Promise<AccessToken> {
  if (!hasCredentialShape('accessToken', token)) throw malformedToken();
  const tokenHash = hashCredential(token);
  // A token held in memory was found in the database before, so it is well
  // formed: its checksum, a second SHA-256, is checked only on the way to the database.
  const stored = deps.tokens.recallAccessToken?.(tokenHash) ?? await readAccessToken(token, tokenHash, deps);
  if (stored === undefined) throw new OAuthError('invalid_token', 'The access token is unknown');
  if (stored.revokedAt !== null) throw new OAuthError('invalid_token', 'The access token was revoked');
  if (stored.expiresAt <= deps.clock.now()) throw new OAuthError('invalid_token', 'The access token expired');
  return stored;
}

/** The token from storage, once its checksum refuses garbage without touching the database. */
function readAccessToken(token: string, tokenHash: string, deps: BearerDeps): Promise<AccessToken | undefined> {
  if (!isWellFormedCredential('accessToken', token)) throw malformedToken();
  return deps.tokens.findAccessToken(tokenHash);
}

/**
 * RFC 8707 §2 and RFC 9728 §7.4: a resource accepts only tokens meant for it, so a
 * token handed to one resource cannot be replayed at another (MCP's token passthrough).
 */
export function requireAudience(token: AccessToken, resource: ProtectedResource): void {
  if (!isAudience(resource, token.resource)) throw new OAuthError('invalid_token', 'The access token is not meant for this resource');
}

export function requireScope(token: AccessToken, scope: string): void {
  if (!token.scope.includes(scope)) throw new OAuthError('insufficient_scope', `This request needs the '${scope}' scope`);
}
