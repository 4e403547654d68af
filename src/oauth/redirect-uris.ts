// Redirect URI matching (RFC 6749 §3.1.2.3) and building the redirect itself.
// Which URIs may be registered is decided in platform/redirect-uris.ts.

export { OOB_REDIRECT_URI } from '../platform/redirect-uris.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

function loopbackWithoutPort(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return null;
  url.port = '';
  return url.href;
}

/**
 * Exact string match against the registered URIs, except that a loopback IP
 * redirect matches on any port: native apps listen on an ephemeral port
 * (RFC 8252 §7.3).
 */
export function isRegisteredRedirectUri(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const requestedWithoutPort = loopbackWithoutPort(requested);
  if (requestedWithoutPort === null) return false;
  return registered.some((uri) => loopbackWithoutPort(uri) === requestedWithoutPort);
}

/**
 * Adds response parameters to the redirect URI's query, keeping any query the
 * client registered (RFC 6749 §3.1.2).
 */
export function buildRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) added.append(name, value);
  }
  // Appended as text: url.searchParams would re-serialize the registered query ("?flag" → "?flag=").
  const extra = added.toString();
  if (extra !== '') url.search = url.search.length > 1 ? `${url.search.slice(1)}&${extra}` : extra;
  return url.href;
}
