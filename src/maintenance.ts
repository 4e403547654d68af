// Housekeeping shared by `folio tokens purge` and the server's background timer.
import type { Storage } from './storage/stores.ts';

/**
 * Dead credentials are kept an hour before deletion so that a rotated refresh
 * token replayed soon after is still recognised as reuse (RFC 9700 §4.14.2)
 * rather than looking merely unknown.
 */
export const PURGE_RETENTION_MS = 60 * 60 * 1000;

/** Longer than any sign-in failure counter is remembered (src/http/login-throttle.ts). */
export const LOGIN_FAILURE_RETENTION_MS = 48 * 60 * 60 * 1000;

export async function purgeExpiredCredentials(storage: Storage, now: number) {
  const purged = await storage.tokens.purgeExpired(now, now - PURGE_RETENTION_MS);
  const loginFailures = await storage.loginThrottle.forgetFailuresBefore(now - LOGIN_FAILURE_RETENTION_MS);
  return { ...purged, loginFailures };
}
