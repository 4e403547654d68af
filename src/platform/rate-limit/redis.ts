// Fixed windows in Redis, shared by every instance (DESIGN §4 FOLIO_REDIS_URL).
// The window runs on Redis's clock (the key's time to live), so instances with
// skewed clocks still agree.
//
// Redis trouble fails open: the request is allowed and a warning is logged at
// most once per interval. The API only reads portfolio data, and answering it
// while Redis is away matters more than enforcing limits for that while; a
// dead limiter store must never take the API down with it.
import type { Redis } from 'ioredis';
import { type RateLimitResult, type RateLimiter, resultOf } from './limiter.ts';

export const REDIS_KEY_PREFIX = 'folio:rl:';
const WARNING_INTERVAL_MS = 60_000;

// One script, so the count and its expiry are set atomically: a key can never be
// left counting without a time to live (a crash between INCR and PEXPIRE would
// otherwise lock that application and user out for good).
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

interface WithHitCommand {
  folioRateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
}

export interface RedisRateLimiterOptions {
  url: string;
  logger: { warn(details: object, message: string): void };
  /** Defaults to folio:rl:; tests sharing one server add a unique suffix. */
  keyPrefix?: string | undefined;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly keyPrefix: string;
  /** ioredis is loaded with the first hit: a process that never limits through Redis never pays for it. */
  private client: Promise<Redis> | undefined;
  private lastWarningAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: RedisRateLimiterOptions) {
    this.keyPrefix = options.keyPrefix ?? REDIS_KEY_PREFIX;
  }

  private async connect(): Promise<Redis> {
    const { Redis } = await import('ioredis');
    const client = new Redis(this.options.url, {
      // Commands never queue while Redis is away (they fail at once and the
      // request is allowed), and a stalled server costs a request at most commandTimeout.
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1_000,
      commandTimeout: 500,
      retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
    });
    // Connection errors surface through hit(), which logs them; without a
    // listener ioredis would print every reconnection failure.
    client.on('error', () => undefined);
    client.defineCommand('folioRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    // Only the first request waits for the connection; after a failure ioredis
    // keeps reconnecting in the background.
    await client.connect().catch(() => undefined);
    return client;
  }

  async hit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    try {
      this.client ??= this.connect();
      const client = await this.client;
      const [count, ttl] = await (client as unknown as WithHitCommand).folioRateLimitHit(this.keyPrefix + key, windowMs);
      return resultOf(count, limit, ttl);
    } catch (error) {
      this.warn(error, now);
      return resultOf(0, limit, windowMs);
    }
  }

  async close(): Promise<void> {
    if (this.client === undefined) return;
    const client = await this.client;
    if (client.status === 'ready') {
      await client.quit().catch(() => client.disconnect());
    } else {
      client.disconnect();
    }
  }

  private warn(error: unknown, now: number): void {
    if (now - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = now;
    this.options.logger.warn({ err: error }, 'rate limit store (Redis) unavailable; allowing requests until it answers');
  }
}
