// Authenticated encryption of a short value under a key derived from another secret
// (HKDF-SHA256, then AES-256-GCM). `context` binds a sealed value to its purpose, so it
// cannot be replayed into another one.
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { RandomSource } from './random.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;

function deriveKey(keyMaterial: string, context: string): Buffer {
  return Buffer.from(hkdfSync('sha256', keyMaterial, Buffer.alloc(0), context, 32));
}

export function seal(plaintext: string, keyMaterial: string, context: string, random: RandomSource): string {
  const iv = random.bytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(keyMaterial, context), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plaintext, or undefined when the key or context is wrong or the value was altered. */
export function unseal(sealed: string, keyMaterial: string, context: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(keyMaterial, context), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
