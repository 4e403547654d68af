// Counting requests per key in fixed windows. Not tied to HTTP: the Fastify
// hook in src/http/rate-limit.ts decides what a key is and renders the answer.

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Requests left in this window, never below zero. */
  remaining: number;
  /** Milliseconds until the window ends and the count starts again. */
  resetMs: number;
}

export interface RateLimiter {
  /**
   * Counts one request for `key`; `now` (Unix ms) is the caller's clock. The
   * in-memory limiter answers at once, without a promise: it runs on every
   * bearer API request.
   */
  hit(key: string, limit: number, windowMs: number, now: number): RateLimitResult | Promise<RateLimitResult>;
  close(): Promise<void>;
}

export function resultOf(count: number, limit: number, resetMs: number): RateLimitResult {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs };
}
