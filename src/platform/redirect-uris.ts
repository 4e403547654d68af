// Which redirect URIs an application may register. RFC 6749 §3.1.2 requires
// absolute URIs without fragments; RFC 8252 adds what native apps need.
import { isLoopbackHost } from './loopback.ts';

/** The out-of-band URI: the code is shown on a page for the user to paste. */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

const MAX_LENGTH = 2000;
/** RFC 8252 §7.1: private-use schemes are reverse domain names, so they contain a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

/** Returns why `uri` cannot be registered, or null when it can. */
export function validateRedirectUri(uri: string): string | null {
  if (uri === OOB_REDIRECT_URI) return null;
  if (uri.length === 0) return 'redirect URI must not be empty';
  if (uri.length > MAX_LENGTH) return `redirect URI must be at most ${MAX_LENGTH} characters`;
  if (/[\s<>"\\^`{|}]/.test(uri)) return `redirect URI must not contain spaces or unsafe characters: ${uri}`;
  if (uri.includes('#')) return `redirect URI must not contain a fragment (RFC 6749 §3.1.2): ${uri}`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `redirect URI must be an absolute URI: ${uri}`;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https' || scheme === 'http') {
    if (url.hostname === '') return `redirect URI must name a host: ${uri}`;
    if (url.username !== '' || url.password !== '') return `redirect URI must not contain credentials: ${uri}`;
    // RFC 8252 §8.3: plain http is only acceptable when the traffic never leaves the device.
    if (scheme === 'http' && !isLoopbackHost(url.hostname)) {
      return `redirect URI must use https unless its host is loopback (localhost, 127.0.0.1, [::1]): ${uri}`;
    }
    return null;
  }
  if (PRIVATE_USE_SCHEME.test(scheme)) return null;
  return `redirect URI must be https, http on loopback, a private-use scheme like com.example.app:/callback, or ${OOB_REDIRECT_URI}: ${uri}`;
}
