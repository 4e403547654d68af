// PKCE, RFC 7636. Only S256: "plain" offers no protection once the
// authorization request leaks, and every current client can hash.
import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError } from './errors.ts';

export const supportedChallengeMethods = ['S256'] as const;

// RFC 7636 §4.1: 43-128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
// A base64url SHA-256 digest is exactly 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Checks an authorization request's challenge; returns it, or null when none was sent. */
export function readCodeChallenge(challenge: string | undefined, method: string | undefined, required: boolean): string | null {
  if (challenge === undefined || challenge === '') {
    if (method !== undefined && method !== '') {
      throw new OAuthError('invalid_request', 'code_challenge_method was sent without code_challenge');
    }
    if (required) throw new OAuthError('invalid_request', 'This application requires PKCE: send code_challenge with code_challenge_method=S256');
    return null;
  }
  // RFC 7636 §4.3: an absent method means "plain", which Folio does not support.
  if (method !== 'S256') {
    throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
  }
  if (!S256_CHALLENGE.test(challenge)) {
    throw new OAuthError('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters)');
  }
  return challenge;
}

/** RFC 7636 §4.6: the verifier must hash to the stored challenge. */
export function verifyCodeVerifier(verifier: string | undefined, challenge: string | null): void {
  if (challenge === null) {
    if (verifier !== undefined) {
      throw new OAuthError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
    }
    return;
  }
  if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required for this code');
  if (!VERIFIER.test(verifier)) throw new OAuthError('invalid_grant', 'code_verifier is malformed');
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  if (computed.length !== expected.length || !timingSafeEqual(computed, expected)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
}
