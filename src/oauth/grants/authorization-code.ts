// RFC 6749 §4.1.3: exchange an authorization code for tokens.
import { hashCredential, isWellFormedCredential } from '../../platform/secrets.ts';
import type { AuthorizationCode } from '../../domain/records.ts';
import type { AuthorizationCodeStore, GrantStore, TokenStore } from '../../storage/stores.ts';
import { OAuthError } from '../errors.ts';
import { verifyCodeVerifier } from '../pkce.ts';
import { type ProtectedResources, narrowResource } from '../resources.ts';
import { type TokenMinter, mintTokens, tokenResponse } from '../tokens.ts';
import { revokeCompromisedAuthorization } from './compromised-authorization.ts';
import type { GrantHandler, TokenRequest } from './grant-handler.ts';

export interface AuthorizationCodeGrantDeps extends TokenMinter {
  codes: Pick<AuthorizationCodeStore, 'findAuthorizationCode'>;
  grants: Pick<GrantStore, 'revokeAuthorization'>;
  tokens: Pick<TokenStore, 'redeemAuthorizationCode'>;
  resources: ProtectedResources;
}

export function createAuthorizationCodeGrant(deps: AuthorizationCodeGrantDeps): GrantHandler {
  const rejectReplay = (stored: AuthorizationCode, now: number, ip: string | null) => revokeCompromisedAuthorization(deps, { ...stored, originCodeHash: stored.codeHash }, {
    type: 'code.replayed', now, ip,
    description: 'The authorization code has already been used; tokens issued from it are revoked',
  });

  return {
    grantType: 'authorization_code',
    requiredParams: ['code', 'redirect_uri'],
    confidentialOnly: false,
    async handle({ client, params, ip, resource: requested }: TokenRequest) {
      const code = params.code!;
      if (!isWellFormedCredential('authorizationCode', code)) {
        throw new OAuthError('invalid_grant', 'The authorization code is invalid');
      }
      const now = deps.clock.now();
      const codeHash = hashCredential(code);
      const stored = await deps.codes.findAuthorizationCode(codeHash);
      if (stored === undefined) throw new OAuthError('invalid_grant', 'The authorization code is invalid');
      // The client binding comes before the replay check: only the client the code
      // was issued to can set off the revocation a replay causes, or any client
      // holding a used code could cut off another's access.
      if (stored.applicationId !== client.application.id) {
        throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
      }
      if (stored.consumedAt !== null) return rejectReplay(stored, now, ip);
      // The other bindings are checked before the code is spent, so someone holding a
      // stolen code without the client's secret or PKCE verifier cannot burn it for the real client.
      if (stored.expiresAt <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired');
      // RFC 6749 §4.1.3: redirect_uri must be identical to the one in the authorization request.
      if (params.redirect_uri !== stored.redirectUri) {
        throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
      }
      verifyCodeVerifier(params.code_verifier, stored.codeChallenge);
      const resource = narrowResource(requested, stored.resource, deps.resources);

      const subject = {
        grantId: stored.grantId, applicationId: stored.applicationId, userId: stored.userId, scope: stored.scope, originCodeHash: codeHash, resource,
      };
      const minted = mintTokens(deps, subject, true);
      // The refresh token keeps the resource granted with the code, so that a refresh can narrow only as far as the code could.
      minted.records.refresh!.resource = stored.resource;
      minted.records.event = {
        type: 'token.issued', userId: stored.userId, applicationId: stored.applicationId,
        ip, detail: { grant_type: 'authorization_code', grant_id: stored.grantId }, createdAt: now,
      };
      if (!(await deps.tokens.redeemAuthorizationCode(codeHash, minted.records, now))) {
        // Spent meanwhile by a redemption racing this one: the loser is a replay too,
        // and the winner's tokens, committed with the spending, are revoked with it.
        const spent = await deps.codes.findAuthorizationCode(codeHash);
        if (spent !== undefined && spent.consumedAt !== null) return rejectReplay(stored, now, ip);
        throw new OAuthError('invalid_grant', 'The authorization behind this code was revoked');
      }
      return tokenResponse(minted, stored.scope);
    },
  };
}
