// User passwords (DESIGN §2): scrypt with a per-user salt, stored in a
// self-describing string so the cost can be raised later without a migration:
//   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
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

interface Cost { N: number; r: number; p: number }

function derive(password: string, salt: Buffer, cost: Cost, keyLength: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is exactly N=2^15, r=8, so leave headroom.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function isTooLong(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
}

/** A new hash, at the cost new passwords get unless `cost` names another (verifyPassword reads it back from the hash). */
export async function hashPassword(password: string, cost: Cost = COST): Promise<string> {
  if (isTooLong(password)) throw new PasswordTooLongError();
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, KEY_BYTES);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash { cost: Cost; salt: Buffer; key: Buffer }

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

let dummyHash: Promise<string> | undefined;

/** A real hash of a random password, made once, for accounts that do not exist. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/**
 * Spends the same time as checking a real account's password and always fails,
 * so sign-in with an unknown email cannot be told apart by timing (user enumeration).
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, await dummyPasswordHash());
  return false;
}
