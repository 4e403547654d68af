// RFC 6749 §4.4: the application acts for the one account that owns it (spec §5.5).
import type { GrantStore, TokenStore } from '../../storage/stores.ts';
import { OAuthError } from '../errors.ts';
import { resolveRequestedScope } from '../scopes.ts';
import { type TokenMinter, mintTokens, tokenResponse } from '../tokens.ts';
import type { GrantHandler, TokenRequest } from './grant-handler.ts';

export interface ClientCredentialsGrantDeps extends TokenMinter {
  grants: Pick<GrantStore, 'findOrCreateActiveGrant'>;
  tokens: Pick<TokenStore, 'saveTokens'>;
}

export function createClientCredentialsGrant(deps: ClientCredentialsGrantDeps): GrantHandler {
  /** The owner revoking this application's access mid-request only means a fresh grant. */
  async function issueForLiveGrant(userId: number, applicationId: number, scope: string[], now: number, ip: string | null) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const grant = await deps.grants.findOrCreateActiveGrant(userId, applicationId, scope, now);
      // RFC 6749 §4.4.3: a refresh token SHOULD NOT be included.
      const minted = mintTokens(deps, { grantId: grant.id, applicationId, userId, scope, originCodeHash: null }, false);
      minted.records.event = {
        type: 'token.issued', userId, applicationId,
        ip, detail: { grant_type: 'client_credentials', grant_id: grant.id }, createdAt: now,
      };
      if (await deps.tokens.saveTokens(minted.records)) return minted;
    }
    throw new OAuthError('temporarily_unavailable', 'The authorization changed during the request; try again');
  }

  return {
    grantType: 'client_credentials',
    requiredParams: [],
    // spec §5.5: client_credentials always requires the client_secret.
    confidentialOnly: true,
    async handle({ client, params, ip }: TokenRequest) {
      const application = client.application;
      const scope = resolveRequestedScope(params.scope, application.scopes);
      const now = deps.clock.now();
      const minted = await issueForLiveGrant(application.ownerId, application.id, scope, now, ip);
      return tokenResponse(minted, scope);
    },
  };
}
