// RFC 8414 authorization server metadata, built from the same registries the
// code dispatches on so it cannot drift from behaviour.
import { clientAuthenticationMethods } from './client-authentication.ts';
import type { GrantRegistry } from './grants/registry.ts';
import { supportedChallengeMethods } from './pkce.ts';
import { supportedScopes } from './scopes.ts';

export const oauthPaths = {
  authorization: '/oauth2/authorize',
  nativeCode: '/oauth2/authorize/native',
  token: '/oauth2/token',
  revocation: '/oauth2/revoke',
  introspection: '/oauth2/introspect',
  tokenInfo: '/oauth2/token/info',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

export function authorizationServerMetadata(issuer: string, registry: GrantRegistry, extra: { serviceDocumentation?: string } = {}) {
  const secretMethods = clientAuthenticationMethods.filter((method) => method !== 'none');
  return {
    issuer,
    authorization_endpoint: issuer + oauthPaths.authorization,
    token_endpoint: issuer + oauthPaths.token,
    revocation_endpoint: issuer + oauthPaths.revocation,
    introspection_endpoint: issuer + oauthPaths.introspection,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...registry.keys()],
    token_endpoint_auth_methods_supported: [...clientAuthenticationMethods],
    revocation_endpoint_auth_methods_supported: [...clientAuthenticationMethods],
    introspection_endpoint_auth_methods_supported: secretMethods,
    code_challenge_methods_supported: [...supportedChallengeMethods],
    scopes_supported: [...supportedScopes],
    authorization_response_iss_parameter_supported: true,
    ...(extra.serviceDocumentation === undefined ? {} : { service_documentation: extra.serviceDocumentation }),
  };
}
