// RFC 7662 token introspection, for confidential clients about their own tokens.
import type { Clock } from '../platform/clock.ts';
import { hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { ApplicationStore, TokenStore } from '../storage/stores.ts';
import { authenticateClient } from './client-authentication.ts';
import { OAuthError } from './errors.ts';
import { formatScope } from './scopes.ts';
import { type ClientRequestInput, presentedClient, rejectRepeatedParams } from './token-endpoint.ts';

export interface IntrospectionDeps {
  applications: Pick<ApplicationStore, 'findApplicationByClientId'>;
  tokens: Pick<TokenStore, 'findAccessToken' | 'findRefreshToken'>;
  clock: Clock;
  issuer: string;
}

export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      token_type?: 'bearer';
      token_use: 'access_token' | 'refresh_token';
      exp: number;
      iat: number;
      sub: string;
      iss: string;
      aud?: string;
    };

const toSeconds = (ms: number) => Math.floor(ms / 1000);

export async function introspectToken(input: ClientRequestInput, deps: IntrospectionDeps): Promise<IntrospectionResponse> {
  rejectRepeatedParams(input);
  const client = await authenticateClient(presentedClient(input), deps.applications);
  // §2.1: the endpoint MUST require authorization; a public client proves nothing.
  if (!client.confidential) throw new OAuthError('invalid_client', 'Introspection needs a confidential application authenticated with its secret');
  const token = input.params.token;
  if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');

  const now = deps.clock.now();
  const kind = isWellFormedCredential('accessToken', token) ? 'access_token'
    : isWellFormedCredential('refreshToken', token) ? 'refresh_token' : undefined;
  if (kind === undefined) return { active: false };
  const hash = hashCredential(token);
  const stored = kind === 'access_token' ? await deps.tokens.findAccessToken(hash) : await deps.tokens.findRefreshToken(hash);
  const rotated = stored !== undefined && 'rotatedAt' in stored && stored.rotatedAt !== null;
  // §2.2: a token of another client is reported inactive, revealing nothing about it.
  if (stored === undefined || stored.applicationId !== client.application.id || stored.revokedAt !== null || rotated || stored.expiresAt <= now) {
    return { active: false };
  }
  return {
    active: true,
    scope: formatScope(stored.scope),
    client_id: client.application.clientId,
    // §2.2: token_type is the RFC 6749 §5.1 type, which only an access token has;
    // which of the two kinds the token is goes in a member of our own.
    ...(kind === 'access_token' ? { token_type: 'bearer' as const } : {}),
    token_use: kind,
    exp: toSeconds(stored.expiresAt),
    iat: toSeconds(stored.createdAt),
    sub: String(stored.userId),
    iss: deps.issuer,
    // §2.2 `aud`: the RFC 8707 resource the token is for; a token issued without one has no audience to report.
    ...(stored.resource === null ? {} : { aud: stored.resource }),
  };
}
