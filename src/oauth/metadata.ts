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
  registration: '/oauth2/register',
} as const;

export interface MetadataOptions {
  serviceDocumentation?: string;
  /** Whether POST /oauth2/register is served (RFC 7591); not advertised when off. */
  registration?: boolean;
}

export function authorizationServerMetadata(issuer: string, registry: GrantRegistry, extra: MetadataOptions = {}) {
  const secretMethods = clientAuthenticationMethods.filter((method) => method !== 'none');
  return {
    issuer,
    authorization_endpoint: issuer + oauthPaths.authorization,
    token_endpoint: issuer + oauthPaths.token,
    revocation_endpoint: issuer + oauthPaths.revocation,
    introspection_endpoint: issuer + oauthPaths.introspection,
    ...(extra.registration === true ? { registration_endpoint: issuer + oauthPaths.registration } : {}),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...registry.keys()],
    token_endpoint_auth_methods_supported: [...clientAuthenticationMethods],
    revocation_endpoint_auth_methods_supported: [...clientAuthenticationMethods],
    introspection_endpoint_auth_methods_supported: secretMethods,
    code_challenge_methods_supported: [...supportedChallengeMethods],
    scopes_supported: [...supportedScopes],
    authorization_response_iss_parameter_supported: true,
    // draft-ietf-oauth-client-id-metadata-document: a client_id may be the URL of the client's metadata.
    client_id_metadata_document_supported: true,
    ...(extra.serviceDocumentation === undefined ? {} : { service_documentation: extra.serviceDocumentation }),
  };
}
