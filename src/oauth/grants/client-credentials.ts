// RFC 6749 §4.4: the application acts for the one account that owns it (spec §5.5).
import type { AuditStore, GrantStore, TokenStore } from '../../storage/stores.ts';
import { resolveRequestedScope } from '../scopes.ts';
import { type TokenMinter, mintTokens, tokenResponse } from '../tokens.ts';
import type { GrantHandler, TokenRequest } from './grant-handler.ts';

export interface ClientCredentialsGrantDeps extends TokenMinter {
  grants: Pick<GrantStore, 'findOrCreateActiveGrant'>;
  tokens: Pick<TokenStore, 'saveTokens'>;
  audit: AuditStore;
}

export function createClientCredentialsGrant(deps: ClientCredentialsGrantDeps): GrantHandler {
  return {
    grantType: 'client_credentials',
    requiredParams: [],
    // spec §5.5: client_credentials always requires the client_secret.
    confidentialOnly: true,
    async handle({ client, params, ip }: TokenRequest) {
      const application = client.application;
      const scope = resolveRequestedScope(params.scope, application.scopes);
      const now = deps.clock.now();
      const grant = await deps.grants.findOrCreateActiveGrant(application.ownerId, application.id, scope, now);
      const subject = { grantId: grant.id, applicationId: application.id, userId: application.ownerId, scope };
      // RFC 6749 §4.4.3: a refresh token SHOULD NOT be included.
      const minted = mintTokens(deps, subject, false);
      await deps.tokens.saveTokens(minted.records);
      await deps.audit.recordEvent({
        type: 'token.issued', userId: application.ownerId, applicationId: application.id,
        ip, detail: { grant_type: 'client_credentials', grant_id: grant.id }, createdAt: now,
      });
      return tokenResponse(minted, scope);
    },
  };
}
