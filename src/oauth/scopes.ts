import { OAuthError } from './errors.ts';

/** Every scope Folio knows. The API is read-only today; a second scope is one more entry. */
export const supportedScopes = ['read'] as const;
export type Scope = (typeof supportedScopes)[number];

export const defaultScope: string[] = ['read'];

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scope a request asks for, limited to what `allowed` holds. An absent
 * scope means the default (RFC 6749 §3.3 lets the server choose it).
 */
export function resolveRequestedScope(raw: string | undefined, allowed: readonly string[]): string[] {
  if (raw === undefined || raw.trim() === '') return defaultScope.filter((scope) => allowed.includes(scope));
  const requested = [...new Set(raw.split(' ').filter((token) => token !== ''))];
  for (const scope of requested) {
    if (!SCOPE_TOKEN.test(scope) || !allowed.includes(scope)) {
      throw new OAuthError('invalid_scope', `The scope '${scope.slice(0, 40)}' is not available to this application`);
    }
  }
  return requested.sort();
}

/** RFC 6749 §6: a refresh may narrow the original scope, never widen it. */
export function narrowScope(raw: string | undefined, original: readonly string[]): string[] {
  if (raw === undefined || raw.trim() === '') return [...original];
  return resolveRequestedScope(raw, original);
}

export function formatScope(scope: readonly string[]): string {
  return scope.join(' ');
}

export function sameScope(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((scope) => b.includes(scope));
}
