// User passwords (DESIGN §2): scrypt with a per-user salt, stored in a
// self-describing string so the cost can be raised later without a migration:
//   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** OWASP's current minimum for scrypt (Password Storage Cheat Sheet): 128 MiB a hash. */
export const PASSWORD_COST: PasswordCost = { N: 2 ** 17, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Longer inputs are refused so one request cannot buy unbounded CPU. */
export const MAX_PASSWORD_BYTES = 1024;

/** Bounds for parameters read back from storage, so a tampered row cannot ask for gigabytes. */
const LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16 } as const;

export class PasswordTooLongError extends Error {
  constructor() {
    super(`password must be at most ${MAX_PASSWORD_BYTES} bytes`);
    this.name = 'PasswordTooLongError';
  }
}

export interface PasswordCost { N: number; r: number; p: number }

/** Hashes under way at most: each holds 128·N·r bytes, 128 MiB at PASSWORD_COST. */
const MAX_HASHES_AT_ONCE = 2;
let hashing = 0;
const waiting: (() => void)[] = [];

async function derive(password: string, salt: Buffer, cost: PasswordCost, keyLength: number): Promise<Buffer> {
  if (hashing >= MAX_HASHES_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  hashing++;
  try {
    // scrypt needs 128·N·r bytes, more than Node's default maxmem: leave headroom.
    const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
    return await new Promise((resolve, reject) => {
      scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
    });
  } finally {
    hashing--;
    waiting.shift()?.();
  }
}

function isTooLong(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
}

/** A new hash, at the cost new passwords get unless `cost` names another (verifyPassword reads it back from the hash). */
export async function hashPassword(password: string, cost: PasswordCost = PASSWORD_COST): Promise<string> {
  if (isTooLong(password)) throw new PasswordTooLongError();
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, KEY_BYTES);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash { cost: PasswordCost; salt: Buffer; key: Buffer }

function parseStoredHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  if (![n, r, p].every((part) => /^[1-9]\d{0,7}$/.test(part))) return undefined;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const isPowerOfTwo = cost.N > 1 && (cost.N & (cost.N - 1)) === 0;
  if (!isPowerOfTwo || cost.N > LIMITS.maxN || cost.r > LIMITS.maxR || cost.p > LIMITS.maxP) return undefined;
  const base64url = /^[A-Za-z0-9_-]+$/;
  if (!base64url.test(salt) || !base64url.test(key)) return undefined;
  const parsed = { cost, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
  if (parsed.salt.length < 8 || parsed.key.length < 16 || parsed.key.length > 128) return undefined;
  return parsed;
}

/** False for a wrong password, an over-long one, or a stored value that is not a hash we wrote. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (isTooLong(password)) return false;
  const parsed = parseStoredHash(stored);
  if (parsed === undefined) return false;
  try {
    const key = await derive(password, parsed.salt, parsed.cost, parsed.key.length);
    return timingSafeEqual(key, parsed.key);
  } catch {
    return false;
  }
}

/** Whether a hash was made at a lower cost than `cost`: hashed anew at the next sign-in. */
export function needsRehash(stored: string, cost: PasswordCost = PASSWORD_COST): boolean {
  const parsed = parseStoredHash(stored);
  return parsed !== undefined && (parsed.cost.N < cost.N || parsed.cost.r < cost.r || parsed.cost.p < cost.p);
}

const dummyHashes = new Map<number, Promise<string>>();

/** A real hash of a random password at `cost`, made once, for accounts that do not exist. */
export function dummyPasswordHash(cost: PasswordCost = PASSWORD_COST): Promise<string> {
  let hash = dummyHashes.get(cost.N);
  if (hash === undefined) {
    hash = hashPassword(randomBytes(32).toString('base64url'), cost);
    dummyHashes.set(cost.N, hash);
  }
  return hash;
}

/**
 * Spends the same time as checking a real account's password and always fails,
 * so sign-in with an unknown email cannot be told apart by timing (user enumeration).
 */
export async function verifyAgainstDummy(password: string, cost: PasswordCost = PASSWORD_COST): Promise<false> {
  await verifyPassword(password, await dummyPasswordHash(cost));
  return false;
}
