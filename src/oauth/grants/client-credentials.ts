// RFC 6749 §4.4: the application acts for the one account that owns it (spec §5.5).
import type { Grant } from '../../domain/records.ts';
import type { GrantStore, TokenStore } from '../../storage/stores.ts';
import { OAuthError } from '../errors.ts';
import { resolveRequestedScope } from '../scopes.ts';
import { type TokenMinter, mintTokens, tokenResponse } from '../tokens.ts';
import type { GrantHandler, TokenRequest } from './grant-handler.ts';

export interface ClientCredentialsGrantDeps extends TokenMinter {
  grants: Pick<GrantStore, 'findOrCreateActiveGrant'>;
  tokens: Pick<TokenStore, 'saveTokens'>;
}

/** Applications whose grant is remembered; the oldest goes first when full. */
const REMEMBERED_GRANTS = 1024;

export function createClientCredentialsGrant(deps: ClientCredentialsGrantDeps): GrantHandler {
  /**
   * The grant each application's last issue went on. Taking it on trust is safe:
   * saveTokens writes only while the grant is live, so a grant revoked meanwhile
   * (here or by another instance) costs one failed save, and then a look-up. A
   * grant's scope only ever widens, so one that covered the request still does.
   * On PostgreSQL the look-up was a round trip of the three an issue made.
   */
  const lastGrants = new Map<number, Grant>();
  const rememberedGrant = (userId: number, applicationId: number, scope: string[]) => {
    const grant = lastGrants.get(applicationId);
    return grant !== undefined && grant.userId === userId && scope.every((wanted) => grant.scope.includes(wanted)) ? grant : undefined;
  };
  const remember = (grant: Grant) => {
    if (!lastGrants.has(grant.applicationId) && lastGrants.size >= REMEMBERED_GRANTS) {
      lastGrants.delete(lastGrants.keys().next().value!);
    }
    lastGrants.set(grant.applicationId, grant);
  };

  /** The tokens on `grant`, or undefined when it was no longer live. */
  async function issueOn(grant: Grant, scope: string[], resource: string | null, now: number, ip: string | null) {
    const { userId, applicationId } = grant;
    // RFC 6749 §4.4.3: a refresh token SHOULD NOT be included.
    const minted = mintTokens(deps, { grantId: grant.id, applicationId, userId, scope, originCodeHash: null, resource }, false);
    minted.records.event = {
      type: 'token.issued', userId, applicationId,
      ip, detail: { grant_type: 'client_credentials', grant_id: grant.id }, createdAt: now,
    };
    return await deps.tokens.saveTokens(minted.records) ? minted : undefined;
  }

  /** The owner revoking this application's access mid-request only means a fresh grant. */
  async function issueForLiveGrant(userId: number, applicationId: number, scope: string[], resource: string | null, now: number, ip: string | null) {
    const remembered = rememberedGrant(userId, applicationId, scope);
    if (remembered !== undefined) {
      const minted = await issueOn(remembered, scope, resource, now, ip);
      if (minted !== undefined) return minted;
      lastGrants.delete(applicationId);
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const grant = await deps.grants.findOrCreateActiveGrant(userId, applicationId, scope, now);
      const minted = await issueOn(grant, scope, resource, now, ip);
      if (minted !== undefined) {
        remember(grant);
        return minted;
      }
    }
    throw new OAuthError('temporarily_unavailable', 'The authorization changed during the request; try again');
  }

  return {
    grantType: 'client_credentials',
    requiredParams: [],
    // spec §5.5: client_credentials always requires the client_secret.
    confidentialOnly: true,
    async handle({ client, params, ip, resource }: TokenRequest) {
      const application = client.application;
      // It acts for the account that owns the application; a self-registered client has none.
      if (application.ownerId === null) {
        throw new OAuthError('unauthorized_client', 'client_credentials is only for applications registered on the API settings page');
      }
      const scope = resolveRequestedScope(params.scope, application.scopes);
      const now = deps.clock.now();
      const minted = await issueForLiveGrant(application.ownerId, application.id, scope, resource, now, ip);
      return tokenResponse(minted, scope);
    },
  };
}
