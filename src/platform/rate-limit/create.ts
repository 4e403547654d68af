import type { RateLimiter } from './limiter.ts';
import { MemoryRateLimiter } from './memory.ts';
import { RedisRateLimiter, type RedisRateLimiterOptions } from './redis.ts';

/** Redis when configured (shared by every instance), else this process's memory. */
export function createRateLimiter(redisUrl: string | null, options: Omit<RedisRateLimiterOptions, 'url'>): RateLimiter {
  return redisUrl === null ? new MemoryRateLimiter() : new RedisRateLimiter({ ...options, url: redisUrl });
}
