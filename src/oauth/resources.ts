// The resources Folio protects (RFC 9728) and the RFC 8707 `resource` parameter
// that names one of them. Folio binds each token to one audience: the resource
// it was asked for, or none for a request without `resource`, which is the
// portfolio API's audience as it was before resource indicators existed.
import { OAuthError } from './errors.ts';

export interface ProtectedResource {
  /** The resource identifier (RFC 8707 §2, RFC 9728 §2 `resource`): what `resource` names and `aud` reports. */
  readonly uri: string;
  /** RFC 9728 §3.1: the well-known prefix inserted before the resource's path. */
  readonly metadataPath: string;
  readonly metadataUrl: string;
  /** The scopes a token needs here (RFC 9728 §2 `scopes_supported`). */
  readonly scopes: readonly string[];
  /** Whether a token issued without `resource` is accepted: only where such tokens were always used. */
  readonly acceptsUnboundTokens: boolean;
  /** RFC 9728 §2 `resource_name`. */
  readonly name: string;
  /** What an application asking for this resource will reach, in the consent page's words ("It will reach …"). */
  readonly reach: string;
}

export interface ProtectedResources {
  readonly api: ProtectedResource;
  readonly mcp: ProtectedResource;
}

export const PROTECTED_RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** Longer than any URI Folio serves by far; a bigger value is refused before it is parsed. */
export const MAX_RESOURCE_LENGTH = 2048;

function protectedResource(baseUrl: string, path: string, fields: Pick<ProtectedResource, 'acceptsUnboundTokens' | 'name'> & { reach: (uri: string) => string }): ProtectedResource {
  const uri = baseUrl + path;
  const metadataPath = PROTECTED_RESOURCE_METADATA_PREFIX + path;
  return Object.freeze({
    uri, metadataPath, metadataUrl: baseUrl + metadataPath, scopes: Object.freeze(['read']),
    acceptsUnboundTokens: fields.acceptsUnboundTokens, name: fields.name, reach: fields.reach(uri),
  });
}

export function protectedResources(baseUrl: string): ProtectedResources {
  return Object.freeze({
    api: protectedResource(baseUrl, '/api/v2', {
      acceptsUnboundTokens: true, name: 'Folio portfolio API', reach: (uri) => `your portfolios through the Folio API at ${uri}`,
    }),
    mcp: protectedResource(baseUrl, '/mcp', {
      acceptsUnboundTokens: false, name: 'Folio MCP server', reach: (uri) => `your portfolios through the MCP server at ${uri}`,
    }),
  });
}

export function everyResource(resources: ProtectedResources): ProtectedResource[] {
  return [resources.api, resources.mcp];
}

const invalidTarget = (description: string) => new OAuthError('invalid_target', description);

// RFC 3986 §2: the characters a URI may hold, and §3.1 its scheme.
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BAD_PERCENT_ENCODING = /%(?![0-9A-Fa-f]{2})/;
// RFC 3986 Appendix B, for a URI with an authority.
const HIERARCHICAL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/**
 * The form two resource URIs are compared in: only RFC 3986 §6.2.2.1–6.2.2.2 and
 * §6.2.3 normalisation (scheme and host case, percent-encoding case and unreserved
 * characters, an empty or default port). Nothing else: no dot segments removed and
 * no slash added, so `/mcp/` and `/api/v2/../mcp` are not `/mcp`.
 */
function comparable(uri: string): string | undefined {
  const match = HIERARCHICAL.exec(uri);
  if (match === null) return undefined;
  const [, scheme, authority, path, query] = match;
  const lowerScheme = scheme!.toLowerCase();
  const percent = (text: string) => text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
  const hostAndPort = /^(.*?)(?::(\d*))?$/.exec(authority!)!;
  const port = hostAndPort[2] === undefined || hostAndPort[2] === '' || hostAndPort[2] === DEFAULT_PORTS[lowerScheme] ? '' : `:${hostAndPort[2]}`;
  return `${lowerScheme}://${percent(hostAndPort[1]!).toLowerCase()}${port}${percent(path!)}${percent(query ?? '')}`;
}

/**
 * RFC 8707 §2: the `resource` of an authorization or token request, as the URI of
 * the resource Folio serves that it names, or null when the request has none.
 * Folio binds a token to one resource, so `resource` given more than once is refused.
 */
export function requestedResource(raw: string | undefined, repeated: boolean, resources: ProtectedResources): string | null {
  if (repeated) throw invalidTarget('Send one resource parameter: an access token from Folio is for one resource');
  if (raw === undefined) return null;
  if (raw.length > MAX_RESOURCE_LENGTH) throw invalidTarget(`resource must be at most ${MAX_RESOURCE_LENGTH} characters`);
  if (!URI_CHARACTERS.test(raw) || BAD_PERCENT_ENCODING.test(raw) || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw)) {
    throw invalidTarget('resource must be an absolute URI (RFC 8707 §2)');
  }
  if (raw.includes('#')) throw invalidTarget('resource must not include a fragment (RFC 8707 §2)');
  const wanted = comparable(raw);
  const served = wanted === undefined ? undefined : everyResource(resources).find((resource) => comparable(resource.uri) === wanted);
  if (served === undefined) {
    throw invalidTarget(`resource must be one Folio serves: ${everyResource(resources).map((resource) => resource.uri).join(' or ')}`);
  }
  return served.uri;
}

/**
 * RFC 8707 §2.2: a token request may name the resource its code or refresh token
 * was granted for, or a narrower one, never another. A grant without a resource is
 * the portfolio API's (the only one such tokens ever reached), so it may be narrowed
 * to that, and never widened to the MCP server. Omitted, the grant's resource stands.
 */
export function narrowResource(requested: string | null, granted: string | null, resources: ProtectedResources): string | null {
  if (requested === null || requested === granted) return granted;
  if (granted === null && requested === resources.api.uri) return requested;
  throw invalidTarget('resource must be the one this authorization was granted for');
}

/** Whether a token bound to `tokenResource` (null: issued without one) may be used at `resource`. */
export function isAudience(resource: ProtectedResource, tokenResource: string | null): boolean {
  return tokenResource === null ? resource.acceptsUnboundTokens : tokenResource === resource.uri;
}

/** The resource a token or code is bound to, for pages that say what it reaches. */
export function resourceAt(resources: ProtectedResources, uri: string | null): ProtectedResource {
  return everyResource(resources).find((resource) => resource.uri === uri) ?? resources.api;
}

/** RFC 9728 §2 protected resource metadata; `documentation` is a page for developers. */
export function protectedResourceMetadata(resource: ProtectedResource, issuer: string, documentation?: string) {
  return {
    resource: resource.uri,
    authorization_servers: [issuer],
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ['header'],
    resource_name: resource.name,
    ...(documentation === undefined ? {} : { resource_documentation: documentation }),
  };
}
