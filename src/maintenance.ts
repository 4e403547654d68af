// Housekeeping shared by `folio tokens purge` and the server's background timer.
import { type Pause, type PacerOptions, pacer } from './platform/pacer.ts';
import type { Storage } from './storage/stores.ts';

/**
 * Dead credentials are kept an hour before deletion so that a rotated refresh
 * token replayed soon after is still recognised as reuse (RFC 9700 §4.14.2)
 * rather than looking merely unknown.
 */
export const PURGE_RETENTION_MS = 60 * 60 * 1000;

/** Longer than any sign-in failure counter is remembered (src/accounts/login-throttle.ts). */
export const LOGIN_FAILURE_RETENTION_MS = 48 * 60 * 60 * 1000;

/**
 * The share of the time the purge may take. On SQLite a batch runs on the event
 * loop and requests wait for it, so the server's purge takes a fortieth of the
 * time under load: more kept the bearer GET during a purge below its target. By
 * hand it rests as long as it works, since a server on the same file waits for
 * its write lock meanwhile. On PostgreSQL a batch runs in the database server,
 * which on a shared machine still takes CPU from requests: a tenth of the time
 * deletes several times what the busiest token endpoint issues.
 */
const PURGE_SHARE = {
  sqlite: { background: 0.025, byHand: 0.5 },
  postgres: { background: 0.1, byHand: 1 },
} as const;

/**
 * The server's purge while nothing else keeps the event loop busy: a quarter of
 * the time, so that a backlog left by a busy spell goes, on SQLite, at about ten
 * times the pace it goes under load, and a request arriving waits for one batch at most.
 */
const PURGE_IDLE_SHARE = 0.25;

/**
 * A batch's own work takes milliseconds; one that took seconds spent them waiting
 * for another process's write lock, and its rest must not grow with that wait.
 */
const PURGE_MAX_REST_MS = 1000;

export function purgePace(
  kind: Storage['kind'], mode: keyof typeof PURGE_SHARE.sqlite, options: Omit<PacerOptions, 'share' | 'idleShare' | 'maxRestMs'> = {},
): Pause {
  // By hand there are no requests to make way for: the loop is always idle.
  const idleShare = mode === 'background' ? PURGE_IDLE_SHARE : undefined;
  return pacer({ ...options, share: PURGE_SHARE[kind][mode], idleShare, maxRestMs: PURGE_MAX_REST_MS });
}

export async function purgeExpiredCredentials(storage: Storage, now: number, betweenBatches: Pause) {
  const purged = await storage.tokens.purgeExpired(now, now - PURGE_RETENTION_MS, betweenBatches);
  const loginFailures = await storage.loginThrottle.forgetFailuresBefore(now - LOGIN_FAILURE_RETENTION_MS, betweenBatches);
  return { ...purged, loginFailures };
}
