// OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document):
// a client_id that is an https URL names a JSON document holding the client's
// metadata. Sections are cited by title, since the draft's numbering still moves.
import { isLoopbackHost } from '../platform/loopback.ts';
import { CLIENT_ID_MAX } from './client-authentication.ts';
import { OAuthError } from './errors.ts';
import { type ClientMetadata, asMetadataObject, invalidMetadata, readClientMetadata } from './client-metadata.ts';

export interface ClientIdUrlOptions {
  /**
   * Outside production, plain http on a loopback host too, as the fetch allows
   * (platform/safe-fetch.ts): a client under development serves its document itself.
   */
  allowLoopbackHttp?: boolean;
}

function isLoopbackHttp(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/**
 * True when a client_id is to be resolved as a metadata document. Folio's own
 * client ids are base64url and can never start this way (the draft's "Supporting
 * Both Pre-Registered and Unregistered Clients").
 */
export function isClientIdMetadataUrl(clientId: string, options: ClientIdUrlOptions = {}): boolean {
  return /^https:\/\//i.test(clientId) || (options.allowLoopbackHttp === true && /^http:\/\//i.test(clientId) && isLoopbackHttp(clientId));
}

/** Why `clientId` cannot be a metadata document URL, or null when it can ("Client Identifier"). */
export function clientIdUrlProblem(clientId: string, options: ClientIdUrlOptions = {}): string | null {
  if (clientId.length > CLIENT_ID_MAX) return `must be at most ${CLIENT_ID_MAX} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(options.allowLoopbackHttp === true && isLoopbackHttp(clientId))) return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not contain a username or password';
  if (clientId.includes('#')) return 'must not contain a fragment';
  const rawPath = clientId.replace(/^https?:\/\/[^/?]*/i, '').replace(/\?.*$/, '');
  if (rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) return 'must not contain . or .. path segments';
  if (url.pathname === '/') return 'must have a path, as in https://app.example/client.json';
  // One spelling per client: the document's client_id is compared as a plain
  // string ("Client Metadata Document"), and the same string keys the cache and is shown to people.
  if (url.href !== clientId) return `must be written in normal form: ${url.href}`;
  // A query is allowed: the draft says a client SHOULD NOT use one, not MUST NOT.
  return null;
}

/** The client_id as a URL to fetch, or invalid_client saying what is wrong with it. */
export function validateClientIdUrl(clientId: string, options: ClientIdUrlOptions = {}): URL {
  const problem = clientIdUrlProblem(clientId, options);
  if (problem !== null) throw new OAuthError('invalid_client', `A client_id URL ${problem}`);
  return new URL(clientId);
}

/**
 * Validates the document fetched from `url`. Folio accepts only public clients
 * here: a document cannot carry a shared secret ("Client Metadata Document"), and
 * private_key_jwt, which "Client Authentication" offers instead, is not supported.
 */
export function validateMetadataDocument(url: string, json: unknown, options: ClientIdUrlOptions = {}): ClientMetadata {
  const clientIdUrl = validateClientIdUrl(url, options);
  const fields = asMetadataObject(json);
  if (fields.client_id !== url) {
    throw invalidMetadata('client_id in the metadata document must equal the URL it is served from, character for character');
  }
  for (const field of ['client_secret', 'client_secret_expires_at']) {
    if (Object.hasOwn(fields, field)) throw invalidMetadata(`${field} must not appear in a client ID metadata document`);
  }
  const metadata = readClientMetadata(fields, {
    // A document cannot carry a secret, so an absent method means a public client.
    tokenEndpointAuthMethod: 'none',
    // "OAuth Phishing Attacks": the host the document came from is what a person can check.
    fallbackName: () => clientIdUrl.hostname,
  });
  if (metadata.tokenEndpointAuthMethod !== 'none') {
    throw invalidMetadata(`token_endpoint_auth_method ${metadata.tokenEndpointAuthMethod} needs a shared secret, which a client ID metadata document cannot have; use none`);
  }
  return metadata;
}
