// Opaque credentials (DESIGN §2 "Secrets and tokens"): a type prefix so secret
// scanners can find leaked values, 256 random bits in base64url, and a checksum
// so garbage is refused before any database look-up.
import { hash, timingSafeEqual } from 'node:crypto';
import type { RandomSource } from './random.ts';

export const credentialPrefixes = {
  accessToken: 'folio_at_',
  refreshToken: 'folio_rt_',
  authorizationCode: 'folio_ac_',
  clientSecret: 'folio_cs_',
  session: 'folio_ss_',
} as const;

export type CredentialKind = keyof typeof credentialPrefixes;

const RANDOM_BYTES = 32;
const BODY_LENGTH = 43; // base64url of 32 bytes, unpadded
const CHECKSUM_LENGTH = 6;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

// crypto.hash: one call and no Hash object, about half the cost of createHash on
// paths that check and hash a credential per request.
function checksum(prefix: string, body: string): string {
  return hash('sha256', prefix + body, 'base64url').slice(0, CHECKSUM_LENGTH);
}

export function generateCredential(kind: CredentialKind, random: RandomSource): string {
  const prefix = credentialPrefixes[kind];
  const body = random.bytes(RANDOM_BYTES).toString('base64url');
  return prefix + body + checksum(prefix, body);
}

/** True when `value` has the shape and checksum of a credential of this kind. No I/O. */
export function isWellFormedCredential(kind: CredentialKind, value: string): boolean {
  const prefix = credentialPrefixes[kind];
  if (value.length !== prefix.length + BODY_LENGTH + CHECKSUM_LENGTH || !value.startsWith(prefix)) return false;
  const rest = value.slice(prefix.length);
  if (!BASE64URL.test(rest)) return false;
  // A plain comparison: the checksum is no secret, anyone can compute it from the body.
  return rest.slice(BODY_LENGTH) === checksum(prefix, rest.slice(0, BODY_LENGTH));
}

/** The only form in which tokens, codes, session ids and client secrets are stored. */
export function hashCredential(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time comparison of two hex digests (so timing does not reveal a prefix match). */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/**
 * Public identifier of an application: 128 random bits, not a secret. Never one
 * that starts with "-", which the command line would read as an option
 * (`folio app rotate-secret CLIENT_ID`): one in 64 did.
 */
export function generateClientId(random: RandomSource): string {
  for (;;) {
    const id = random.bytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
