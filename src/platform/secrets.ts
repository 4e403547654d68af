// Opaque credentials (DESIGN §2 "Secrets and tokens"): a type prefix so secret
// scanners can find leaked values, 256 random bits in base64url, and a checksum
// so garbage is refused before any database look-up. Access tokens, refresh tokens
// and codes also carry their issue time, before the random bits, so that their
// stored forms sort in the order they were issued (see hashCredential).
import { hash, timingSafeEqual } from 'node:crypto';
import type { RandomSource } from './random.ts';

export const credentialPrefixes = {
  accessToken: 'folio_at_',
  refreshToken: 'folio_rt_',
  authorizationCode: 'folio_ac_',
  clientSecret: 'folio_cs_',
  session: 'folio_ss_',
  device: 'folio_dv_',
} as const;

export type CredentialKind = keyof typeof credentialPrefixes;

/** The kinds issued at a high rate into tables that hold millions of them. */
const TIME_ORDERED_KINDS = ['accessToken', 'refreshToken', 'authorizationCode'] as const;
export type TimeOrderedKind = (typeof TIME_ORDERED_KINDS)[number];
const TIME_ORDERED_PREFIXES: readonly string[] = TIME_ORDERED_KINDS.map((kind) => credentialPrefixes[kind]);

const RANDOM_BYTES = 32;
const BODY_LENGTH = 43; // base64url of 32 bytes, unpadded
const TIME_BYTES = 6; // milliseconds since 1970, big-endian: enough until the year 10889
const TIME_LENGTH = 8; // base64url of 6 bytes, unpadded
const CHECKSUM_LENGTH = 6;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

// crypto.hash: one call and no Hash object, about half the cost of createHash on
// paths that check and hash a credential per request.
function checksum(prefix: string, body: string): string {
  return hash('sha256', prefix + body, 'base64url').slice(0, CHECKSUM_LENGTH);
}

/**
 * A new credential. Access tokens, refresh tokens and codes take the time they are
 * issued at; without one they have the shape all credentials had before it was
 * added, which stays valid (tokens issued by an earlier release keep working).
 */
export function generateCredential(kind: CredentialKind, random: RandomSource): string;
export function generateCredential(kind: TimeOrderedKind, random: RandomSource, issuedAt: number): string;
export function generateCredential(kind: CredentialKind, random: RandomSource, issuedAt?: number): string {
  const prefix = credentialPrefixes[kind];
  let body = random.bytes(RANDOM_BYTES).toString('base64url');
  if (issuedAt !== undefined) {
    const time = Buffer.alloc(TIME_BYTES);
    time.writeUIntBE(issuedAt, 0, TIME_BYTES);
    body = time.toString('base64url') + body;
  }
  return prefix + body + checksum(prefix, body);
}

/** The length of `value`'s body, when it has the prefix, length and alphabet of a credential of this kind. */
function credentialBodyLength(kind: CredentialKind, value: string): number | undefined {
  const prefix = credentialPrefixes[kind];
  if (!value.startsWith(prefix)) return undefined;
  const bodyLength = value.length - prefix.length - CHECKSUM_LENGTH;
  if (bodyLength !== BODY_LENGTH && !(bodyLength === TIME_LENGTH + BODY_LENGTH && TIME_ORDERED_PREFIXES.includes(prefix))) return undefined;
  return BASE64URL.test(value.slice(prefix.length)) ? bodyLength : undefined;
}

/**
 * True when `value` has the prefix, length and alphabet of a credential of this
 * kind: what can be checked without hashing it. No I/O.
 */
export function hasCredentialShape(kind: CredentialKind, value: string): boolean {
  return credentialBodyLength(kind, value) !== undefined;
}

/** True when `value` has the shape and checksum of a credential of this kind. No I/O. */
export function isWellFormedCredential(kind: CredentialKind, value: string): boolean {
  const bodyLength = credentialBodyLength(kind, value);
  if (bodyLength === undefined) return false;
  const prefix = credentialPrefixes[kind];
  const rest = value.slice(prefix.length);
  // A plain comparison: the checksum is no secret, anyone can compute it from the body.
  return rest.slice(bodyLength) === checksum(prefix, rest.slice(0, bodyLength));
}

/**
 * The only form in which tokens, codes, session ids and client secrets are stored:
 * the SHA-256 of the whole credential in hex. For a credential that carries its
 * issue time, that time in hex comes first, so that the stored forms of new tokens
 * sort after older ones: each insert into the table's primary-key index lands at its
 * right-hand end, in pages that the previous inserts already touched, instead of on
 * a random page of an index far larger than memory, which each commit would write
 * again whole. The time is no secret: the token response says
 * it (`created_at`), and the hash still covers all 256 random bits.
 */
export function hashCredential(value: string): string {
  return issueTimeHex(value) + hash('sha256', value, 'hex');
}

/** Each base64url character's value (RFC 4648 §5), or -1, by character code below 128. */
const BASE64URL_DIGITS = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('').forEach((character, digit) => {
  BASE64URL_DIGITS[character.charCodeAt(0)] = digit;
});

/** The 24 bits four base64url digits from `start` carry, or -1 where one is not a digit. */
function base64urlBits24(value: string, start: number): number {
  let bits = 0;
  for (let index = start; index < start + 4; index++) {
    const code = value.charCodeAt(index);
    const digit = code < 128 ? BASE64URL_DIGITS[code]! : -1;
    if (digit === -1) return -1;
    bits = (bits << 6) | digit;
  }
  return bits;
}

/**
 * The issue time a well-shaped time-ordered credential carries, in 12 hex digits;
 * '' for any other value. Its 8 base64url digits are the time's 6 bytes, read in
 * two halves of 24 bits without a Buffer, since every bearer request hashes its token.
 */
function issueTimeHex(value: string): string {
  for (const prefix of TIME_ORDERED_PREFIXES) {
    if (value.length !== prefix.length + TIME_LENGTH + BODY_LENGTH + CHECKSUM_LENGTH || !value.startsWith(prefix)) continue;
    const high = base64urlBits24(value, prefix.length);
    const low = base64urlBits24(value, prefix.length + TIME_LENGTH / 2);
    if (high === -1 || low === -1) return '';
    // Three bytes each, six hex digits.
    return high.toString(16).padStart(6, '0') + low.toString(16).padStart(6, '0');
  }
  return '';
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
