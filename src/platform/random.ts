import { randomBytes } from 'node:crypto';

/** Randomness is injected so tests can make token values predictable when they need to. */
export interface RandomSource {
  bytes(length: number): Buffer;
}

export const cryptoRandom: RandomSource = { bytes: (length) => randomBytes(length) };
