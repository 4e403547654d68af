// Fixed windows in this process's memory: right for one instance. Several
// instances each count on their own; FOLIO_REDIS_URL makes them share.
import { type RateLimitResult, type RateLimiter, resultOf } from './limiter.ts';

interface Window {
  count: number;
  resetAt: number;
}

/** Enough for every application and user active in one window of a busy instance. */
export const DEFAULT_MAX_KEYS = 100_000;

export class MemoryRateLimiter implements RateLimiter {
  // A Map iterates in insertion order and a key is re-inserted when its window
  // starts, so the oldest windows come first: sweeping stops at the first live one.
  private readonly windows = new Map<string, Window>();

  constructor(private readonly maxKeys: number = DEFAULT_MAX_KEYS) {}

  /** Keys held now (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }

  hit(key: string, limit: number, windowMs: number, now: number): RateLimitResult {
    this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      this.windows.delete(key);
      // Full of live windows (many keys at once): forget the oldest. That key
      // starts afresh, a small leniency that keeps memory bounded.
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return resultOf(window.count, limit, window.resetAt - now);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.resetAt > now) return;
      this.windows.delete(key);
    }
  }
}
