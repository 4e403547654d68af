// RFC 6749 §3.2 token endpoint as a list of named steps, in the order errors
// take precedence. The HTTP layer has already parsed the body and the
// Authorization header into a TokenEndpointInput.
import type { ApplicationStore } from '../storage/stores.ts';
import { type PresentedClient, authenticateClient } from './client-authentication.ts';
import { OAuthError } from './errors.ts';
import type { GrantRegistry } from './grants/registry.ts';
import { type ProtectedResources, requestedResource } from './resources.ts';
import type { TokenResponse } from './tokens.ts';

export interface ClientRequestInput {
  params: Readonly<Record<string, string>>;
  /** Names of parameters that appeared more than once. */
  repeatedParams: readonly string[];
  /** Credentials from an `Authorization: Basic` header, already URL-decoded. */
  basic?: { clientId: string; clientSecret: string };
  ip: string | null;
}

export interface TokenEndpointDeps {
  registry: GrantRegistry;
  applications: Pick<ApplicationStore, 'findApplicationByClientId'>;
  resources: ProtectedResources;
}

export async function handleTokenRequest(input: ClientRequestInput, deps: TokenEndpointDeps): Promise<TokenResponse> {
  // RFC 8707 §2 allows several resource parameters: Folio refuses them as invalid_target, below.
  rejectRepeatedParams({ repeatedParams: input.repeatedParams.filter((name) => name !== 'resource') });
  const client = await authenticateClient(presentedClient(input), deps.applications);
  const handler = selectGrant(input.params, deps.registry);
  if (handler.confidentialOnly && !client.confidential) {
    throw new OAuthError('unauthorized_client', `${handler.grantType} is only for confidential applications that authenticate with their secret`);
  }
  for (const name of handler.requiredParams) {
    if (input.params[name] === undefined || input.params[name] === '') {
      throw new OAuthError('invalid_request', `${name} is required`);
    }
  }
  const resource = requestedResource(input.params.resource, input.repeatedParams.includes('resource'), deps.resources);
  return handler.handle({ client, params: input.params, ip: input.ip, resource });
}

/** RFC 6749 §3.2: request parameters MUST NOT be included more than once. */
export function rejectRepeatedParams(input: Pick<ClientRequestInput, 'repeatedParams'>): void {
  if (input.repeatedParams.length > 0) {
    throw new OAuthError('invalid_request', `Parameter given more than once: ${input.repeatedParams[0]}`);
  }
}

/**
 * RFC 6749 §2.3: a client MUST NOT use more than one authentication method in
 * a request. A client_id in the body beside Basic is allowed only when it names
 * the same client.
 */
export function presentedClient(input: Pick<ClientRequestInput, 'params' | 'basic'>): PresentedClient | undefined {
  const { client_id: bodyId } = input.params;
  // Public clients sometimes send an empty secret; that is no secret at all.
  const bodySecret = input.params.client_secret === '' ? undefined : input.params.client_secret;
  if (input.basic !== undefined) {
    if (bodySecret !== undefined) {
      throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or client_secret in the body, not both');
    }
    if (bodyId !== undefined && bodyId !== input.basic.clientId) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Authorization header');
    }
    const { clientId, clientSecret } = input.basic;
    if (clientSecret === '') return { method: 'none', clientId };
    return { method: 'client_secret_basic', clientId, clientSecret };
  }
  if (bodyId === undefined) {
    if (bodySecret !== undefined) throw new OAuthError('invalid_request', 'client_secret was sent without client_id');
    return undefined;
  }
  if (bodySecret !== undefined) return { method: 'client_secret_post', clientId: bodyId, clientSecret: bodySecret };
  return { method: 'none', clientId: bodyId };
}

function selectGrant(params: Readonly<Record<string, string>>, registry: GrantRegistry) {
  const grantType = params.grant_type;
  if (grantType === undefined || grantType === '') throw new OAuthError('invalid_request', 'grant_type is required');
  const handler = registry.get(grantType);
  if (handler === undefined) {
    throw new OAuthError('unsupported_grant_type', `grant_type must be one of: ${[...registry.keys()].join(', ')}`);
  }
  return handler;
}
