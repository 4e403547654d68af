import { randomFillSync } from 'node:crypto';

/** Randomness is injected so tests can make token values predictable when they need to. */
export interface RandomSource {
  bytes(length: number): Buffer;
}

/** How many bytes are drawn from the CSPRNG at a time. */
const POOL_BYTES = 4096;

/**
 * The system's cryptographic random bytes, drawn 4 KiB at a time, as Node's own
 * randomUUID keeps a cache, rather than a call into OpenSSL for every credential.
 * Each byte is handed out once, as a copy, and wiped from the pool as it goes.
 */
export function pooledCryptoRandom(): RandomSource {
  const pool = Buffer.alloc(POOL_BYTES);
  let used = POOL_BYTES;
  return {
    bytes(length) {
      if (length > POOL_BYTES) return randomFillSync(Buffer.alloc(length));
      if (used + length > POOL_BYTES) {
        randomFillSync(pool);
        used = 0;
      }
      const taken = Buffer.from(pool.subarray(used, used + length));
      pool.fill(0, used, used + length);
      used += length;
      return taken;
    },
  };
}

export const cryptoRandom: RandomSource = pooledCryptoRandom();
