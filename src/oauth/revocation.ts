// RFC 7009 token revocation.
import { hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { ApplicationStore, GrantStore, TokenStore } from '../storage/stores.ts';
import { authenticateClient } from './client-authentication.ts';
import { OAuthError } from './errors.ts';
import { type ClientRequestInput, presentedClient, rejectRepeatedParams } from './token-endpoint.ts';
import type { Clock } from '../platform/clock.ts';

export interface RevocationDeps {
  applications: Pick<ApplicationStore, 'findApplicationByClientId'>;
  tokens: Pick<TokenStore, 'findAccessToken' | 'findRefreshToken' | 'revokeAccessToken'>;
  grants: Pick<GrantStore, 'revokeAuthorization'>;
  clock: Clock;
}

export async function revokeToken(input: ClientRequestInput, deps: RevocationDeps): Promise<void> {
  rejectRepeatedParams(input);
  const { application } = await authenticateClient(presentedClient(input), deps.applications);
  const token = input.params.token;
  if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');
  const now = deps.clock.now();
  const hash = hashCredential(token);

  // The prefix says what the token is, so token_type_hint is never needed (§2.1 lets us ignore it).
  if (isWellFormedCredential('accessToken', token)) {
    const stored = await deps.tokens.findAccessToken(hash);
    if (stored === undefined) return;
    assertOwnToken(stored.applicationId, application.id);
    await deps.tokens.revokeAccessToken(hash, now, {
      type: 'token.revoked', userId: stored.userId, applicationId: stored.applicationId, ip: input.ip, detail: { token_type: 'access_token' }, createdAt: now,
    });
    return;
  }
  if (isWellFormedCredential('refreshToken', token)) {
    const stored = await deps.tokens.findRefreshToken(hash);
    if (stored === undefined || stored.revokedAt !== null) return;
    assertOwnToken(stored.applicationId, application.id);
    // §2.1: revoking a refresh token SHOULD also invalidate the access tokens of the
    // same authorization grant: those descended from the same code, not the user's other devices'.
    await deps.grants.revokeAuthorization(stored.grantId, stored.originCodeHash, now, {
      type: 'token.revoked', userId: stored.userId, applicationId: stored.applicationId, ip: input.ip,
      detail: { token_type: 'refresh_token', grant_id: stored.grantId }, createdAt: now,
    });
  }
  // §2.2: an invalid or unknown token is answered with 200 all the same.
}

/** §2.1: the server verifies that the token was issued to the client asking. */
function assertOwnToken(tokenApplicationId: number, clientApplicationId: number): void {
  if (tokenApplicationId !== clientApplicationId) {
    throw new OAuthError('unauthorized_client', 'The token was issued to another client');
  }
}
