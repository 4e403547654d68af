// RFC 6749 §6 with rotation (RFC 9700 §4.14.2): every refresh returns a new
// pair and kills the presented refresh token; the old access token lives on
// until it expires.
import { hashCredential, isWellFormedCredential } from '../../platform/secrets.ts';
import type { RefreshToken } from '../../domain/records.ts';
import type { AuditStore, GrantStore, TokenStore } from '../../storage/stores.ts';
import { OAuthError } from '../errors.ts';
import { lifetimes } from '../lifetimes.ts';
import { type ProtectedResources, narrowResource } from '../resources.ts';
import { narrowScope } from '../scopes.ts';
import { type TokenMinter, mintTokens, tokenResponse } from '../tokens.ts';
import { revokeCompromisedAuthorization } from './compromised-authorization.ts';
import type { GrantHandler, TokenRequest } from './grant-handler.ts';

export interface RefreshTokenGrantDeps extends TokenMinter {
  grants: Pick<GrantStore, 'revokeAuthorization'>;
  tokens: Pick<TokenStore, 'findRefreshToken' | 'rotateRefreshToken'>;
  audit: Pick<AuditStore, 'recordEvent'>;
  resources: ProtectedResources;
}

const invalid = () => new OAuthError('invalid_grant', 'The refresh token is invalid, expired or revoked');

export function createRefreshTokenGrant(deps: RefreshTokenGrantDeps): GrantHandler {
  const treatAsStolen = (stored: RefreshToken, now: number, ip: string | null) => revokeCompromisedAuthorization(deps, stored, {
    type: 'refresh_token.reused', now, ip,
    description: 'The refresh token was already used; every token of this authorization is revoked',
  });

  /**
   * Two requests of one client racing each other: the loser is refused, and nothing
   * is revoked since the client, not a thief, holds the token (RFC 9700 §4.14.2). The
   * refusal is recorded all the same, so a thief who acts within the window is seen.
   */
  const refuseRace = async (stored: RefreshToken, now: number, ip: string | null): Promise<never> => {
    await deps.audit.recordEvent({
      type: 'refresh_token.raced', userId: stored.userId, applicationId: stored.applicationId, ip, detail: { grant_id: stored.grantId }, createdAt: now,
    });
    throw new OAuthError('invalid_grant', 'The refresh token was just used by another request');
  };

  return {
    grantType: 'refresh_token',
    requiredParams: ['refresh_token'],
    confidentialOnly: false,
    async handle({ client, params, ip, resource: requested }: TokenRequest) {
      const presented = params.refresh_token!;
      if (!isWellFormedCredential('refreshToken', presented)) throw invalid();
      const hash = hashCredential(presented);
      const stored = await deps.tokens.findRefreshToken(hash);
      // RFC 6749 §6: the refresh token must have been issued to this client.
      if (stored === undefined || stored.applicationId !== client.application.id) throw invalid();
      if (stored.revokedAt !== null) throw invalid();

      const now = deps.clock.now();
      if (stored.rotatedAt !== null) {
        if (now - stored.rotatedAt <= lifetimes.refreshRaceWindow) return refuseRace(stored, now, ip);
        return treatAsStolen(stored, now, ip);
      }
      if (stored.expiresAt <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired');

      const scope = narrowScope(params.scope, stored.scope);
      const resource = narrowResource(requested, stored.resource, deps.resources);
      const subject = { grantId: stored.grantId, applicationId: stored.applicationId, userId: stored.userId, scope, originCodeHash: stored.originCodeHash, resource };
      const minted = mintTokens(deps, subject, true);
      // RFC 6749 §6 and RFC 8707 §2.2: a narrower scope or resource applies to the new
      // access token only; the new refresh token keeps those of the one it replaces.
      minted.records.refresh!.scope = stored.scope;
      minted.records.refresh!.resource = stored.resource;
      minted.records.event = {
        type: 'token.refreshed', userId: stored.userId, applicationId: stored.applicationId,
        ip, detail: { grant_id: stored.grantId }, createdAt: now,
      };
      const won = await deps.tokens.rotateRefreshToken(hash, minted.records, now);
      if (!won) return refuseRace(stored, now, ip);
      return tokenResponse(minted, scope);
    },
  };
}
