// The grants Folio supports. The token endpoint dispatches on this registry and
// the RFC 8414 metadata lists its keys, so the two cannot disagree.
import type { AuditStore, AuthorizationCodeStore, GrantStore, TokenStore } from '../../storage/stores.ts';
import type { ProtectedResources } from '../resources.ts';
import type { TokenMinter } from '../tokens.ts';
import { createAuthorizationCodeGrant } from './authorization-code.ts';
import { createClientCredentialsGrant } from './client-credentials.ts';
import type { GrantHandler } from './grant-handler.ts';
import { createRefreshTokenGrant } from './refresh-token.ts';

export type GrantRegistry = ReadonlyMap<string, GrantHandler>;

export interface GrantRegistryDeps extends TokenMinter {
  codes: AuthorizationCodeStore;
  grants: GrantStore;
  tokens: TokenStore;
  audit: AuditStore;
  resources: ProtectedResources;
}

export function createGrantRegistry(deps: GrantRegistryDeps): GrantRegistry {
  const handlers = [
    createAuthorizationCodeGrant(deps),
    createClientCredentialsGrant(deps),
    createRefreshTokenGrant(deps),
  ];
  return new Map(handlers.map((handler) => [handler.grantType, handler]));
}

/** The same grants, each reporting its grant type after it issued tokens (for metrics). */
export function observeGrants(registry: GrantRegistry, onIssued: (grantType: string) => void): GrantRegistry {
  const observed = [...registry.values()].map((handler): GrantHandler => ({
    grantType: handler.grantType,
    requiredParams: handler.requiredParams,
    confidentialOnly: handler.confidentialOnly,
    async handle(request) {
      const response = await handler.handle(request);
      onIssued(handler.grantType);
      return response;
    },
  }));
  return new Map(observed.map((handler) => [handler.grantType, handler]));
}
