// Client metadata (RFC 7591 §2) as a client registers it at POST /oauth2/register,
// or publishes it in a Client ID Metadata Document (client-id-metadata-document.ts).
// Unknown fields are ignored, as RFC 7591 §2 requires; a known field of the wrong
// type or value refuses the whole registration with the field named.
import { validApplicationName } from '../accounts/applications.ts';
import { AccountError } from '../accounts/errors.ts';
import { OOB_REDIRECT_URI, validateRedirectUri } from '../platform/redirect-uris.ts';
import { OAuthError } from './errors.ts';
import { defaultScope, supportedScopes } from './scopes.ts';

export const selfRegisteredAuthMethods = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type SelfRegisteredAuthMethod = (typeof selfRegisteredAuthMethods)[number];
export type SelfRegisteredGrantType = 'authorization_code' | 'refresh_token';

export interface ClientMetadata {
  clientName: string;
  redirectUris: string[];
  tokenEndpointAuthMethod: SelfRegisteredAuthMethod;
  /** False for 'none': a public client, which must use PKCE. */
  confidential: boolean;
  grantTypes: SelfRegisteredGrantType[];
  responseTypes: ['code'];
  scope: string[];
  /** Informational only; never fetched or linked as if vouched for. */
  clientUri?: string;
  logoUri?: string;
}

export interface MetadataDefaults {
  /** RFC 7591 §2 defaults to client_secret_basic; a metadata document has no secret, so it defaults to none. */
  tokenEndpointAuthMethod: SelfRegisteredAuthMethod;
  /** The client_name of a client that sends none, from its validated redirect URIs. */
  fallbackName: (redirectUris: readonly string[]) => string;
}

export const MAX_SELF_REGISTERED_REDIRECT_URIS = 10;
const MAX_INFO_URI_LENGTH = 2000;

export function invalidMetadata(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

/** The object a document or request body must be, with its fields readable by name. */
export function asMetadataObject(json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalidMetadata('client metadata must be a JSON object');
  }
  return json as Record<string, unknown>;
}

/** Validates RFC 7591 §2 client metadata sent to Dynamic Client Registration. */
export function validateClientMetadata(json: unknown): ClientMetadata {
  const fields = asMetadataObject(json);
  return readClientMetadata(fields, {
    tokenEndpointAuthMethod: 'client_secret_basic',
    fallbackName: nameFromRedirectUri,
  });
}

/** The shared rules; callers decide the defaults and add their own checks. */
export function readClientMetadata(fields: Record<string, unknown>, defaults: MetadataDefaults): ClientMetadata {
  // Some clients send null for a field they leave unset; it reads as absent.
  const field = (name: string): unknown => (Object.hasOwn(fields, name) ? fields[name] ?? undefined : undefined);
  const redirectUris = readRedirectUris(field('redirect_uris'));
  const tokenEndpointAuthMethod = readAuthMethod(field('token_endpoint_auth_method'), defaults.tokenEndpointAuthMethod);
  const grantTypes = readGrantTypes(field('grant_types'));
  readResponseTypes(field('response_types'));
  const clientUri = readInfoUri(field('client_uri'), 'client_uri');
  const logoUri = readInfoUri(field('logo_uri'), 'logo_uri');
  return {
    // A fallback name passes the same checks, so an overlong host asks for a client_name.
    clientName: readClientName(field('client_name') ?? defaults.fallbackName(redirectUris)),
    redirectUris,
    tokenEndpointAuthMethod,
    confidential: tokenEndpointAuthMethod !== 'none',
    grantTypes,
    responseTypes: ['code'],
    scope: readScope(field('scope')),
    ...(clientUri === undefined ? {} : { clientUri }),
    ...(logoUri === undefined ? {} : { logoUri }),
  };
}

function readRedirectUris(value: unknown): string[] {
  const invalid = (description: string) => new OAuthError('invalid_redirect_uri', description);
  if (value === undefined) throw invalid('redirect_uris is required');
  if (!Array.isArray(value) || !value.every((uri) => typeof uri === 'string')) {
    throw invalid('redirect_uris must be an array of strings');
  }
  const unique = [...new Set(value as string[])];
  if (unique.length === 0) throw invalid('redirect_uris must name at least one redirect URI');
  if (unique.length > MAX_SELF_REGISTERED_REDIRECT_URIS) {
    throw invalid(`redirect_uris may name at most ${MAX_SELF_REGISTERED_REDIRECT_URIS} redirect URIs`);
  }
  for (const uri of unique) {
    // The out-of-band page shows the code to whoever holds the browser, and a
    // self-registered client has no owner who answers for where it goes next;
    // native apps have loopback redirects instead (RFC 8252 §7.3).
    if (uri === OOB_REDIRECT_URI) throw invalid(`redirect_uris: ${OOB_REDIRECT_URI} is not available to self-registered clients`);
    const problem = validateRedirectUri(uri);
    if (problem !== null) throw invalid(`redirect_uris: ${problem.slice(0, 300)}`);
    // Any app on a device may claim a private-use scheme, and nobody vouches for this
    // client: like MCP (authorization, communication security), only https or loopback.
    if (!/^https?:/i.test(uri)) throw invalid(`redirect_uris: a self-registered client may use only https or loopback http: ${uri.slice(0, 300)}`);
  }
  return unique;
}

function readAuthMethod(value: unknown, fallback: SelfRegisteredAuthMethod): SelfRegisteredAuthMethod {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw invalidMetadata('token_endpoint_auth_method must be a string');
  if ((selfRegisteredAuthMethods as readonly string[]).includes(value)) return value as SelfRegisteredAuthMethod;
  if (value === 'private_key_jwt' || value === 'client_secret_jwt') {
    throw invalidMetadata(`token_endpoint_auth_method ${value} is not supported by Folio; use none (a public client with PKCE)`);
  }
  throw invalidMetadata(`token_endpoint_auth_method must be one of ${selfRegisteredAuthMethods.join(', ')}`);
}

function readGrantTypes(value: unknown): SelfRegisteredGrantType[] {
  const grantTypes = readStringSet(value, 'grant_types', ['authorization_code']);
  for (const grantType of grantTypes) {
    if (grantType === 'client_credentials') {
      throw invalidMetadata('grant_types: client_credentials is not available to self-registered clients, which must act for a signed-in person');
    }
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw invalidMetadata(`grant_types: ${grantType.slice(0, 60)} is not supported; use authorization_code and refresh_token`);
    }
  }
  // RFC 7591 §2.1: response type code goes with grant type authorization_code.
  if (!grantTypes.includes('authorization_code')) throw invalidMetadata('grant_types must include authorization_code');
  return grantTypes as SelfRegisteredGrantType[];
}

function readResponseTypes(value: unknown): void {
  const responseTypes = readStringSet(value, 'response_types', ['code']);
  const other = responseTypes.find((type) => type !== 'code');
  if (other !== undefined) throw invalidMetadata(`response_types: ${other.slice(0, 60)} is not supported; Folio supports only code`);
}

function readStringSet(value: unknown, field: string, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw invalidMetadata(`${field} must be an array of strings`);
  }
  if (value.length === 0) throw invalidMetadata(`${field} must not be empty`);
  return [...new Set(value as string[])];
}

function readClientName(value: unknown): string {
  if (typeof value !== 'string') throw invalidMetadata('client_name must be a string');
  try {
    return validApplicationName(value);
  } catch (error) {
    if (error instanceof AccountError) throw invalidMetadata(`client_name: ${error.message}`);
    throw error;
  }
}

/**
 * Without a client_name a client is shown by where its codes go: the host of its
 * first redirect URI, or the scheme of a private-use one (com.example.app).
 */
function nameFromRedirectUri(redirectUris: readonly string[]): string {
  const url = new URL(redirectUris[0]!);
  return url.hostname === '' ? url.protocol.slice(0, -1) : url.hostname;
}

function readScope(value: unknown): string[] {
  if (value === undefined) return [...defaultScope];
  if (typeof value !== 'string') throw invalidMetadata('scope must be a string of space-separated scope values');
  const requested = [...new Set(value.split(' ').filter((token) => token !== ''))];
  const unsupported = requested.find((scope) => !(supportedScopes as readonly string[]).includes(scope));
  if (unsupported !== undefined) {
    throw invalidMetadata(`scope: '${unsupported.slice(0, 40)}' is not a scope Folio supports (supported: ${supportedScopes.join(' ')})`);
  }
  return requested.length === 0 ? [...defaultScope] : requested.sort();
}

function readInfoUri(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidMetadata(`${field} must be a string`);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (value.length > MAX_INFO_URI_LENGTH || url?.protocol !== 'https:' || url.username !== '' || url.password !== '') {
    throw invalidMetadata(`${field} must be an https URL of at most ${MAX_INFO_URI_LENGTH} characters, without credentials`);
  }
  return value;
}
