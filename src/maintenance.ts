// Housekeeping shared by `folio tokens purge` and the server's background timer.
import { type Pause, type PacerOptions, pacer } from './platform/pacer.ts';
import type { Storage } from './storage/stores.ts';

/**
 * Dead credentials are kept an hour before deletion so that a rotated refresh
 * token replayed soon after is still recognised as reuse (RFC 9700 §4.14.2)
 * rather than looking merely unknown.
 */
export const PURGE_RETENTION_MS = 60 * 60 * 1000;

/** Longer than any sign-in failure counter is remembered (src/http/login-throttle.ts). */
export const LOGIN_FAILURE_RETENTION_MS = 48 * 60 * 60 * 1000;

/**
 * On SQLite a purge batch runs on the event loop (better-sqlite3 is synchronous),
 * so requests wait while it runs. The server's purge there takes at most a
 * fortieth of the time while requests keep the loop busy, resting thirty-nine
 * times as long as each batch took: an unpaced purge of a large backlog cut the
 * bearer GET to a fifth of its throughput, a tenth left it at 0.77-0.86x and a
 * twentieth, on some days, at 0.79-0.87x, below the 0.9x we hold it to, since the
 * purge also pushes the requests' data out of the processor's caches
 * (docs/performance.md). A purge run by hand rests as long as it works: it may run
 * beside a server on the same file, whose writers wait for the write lock
 * meanwhile, and that wait blocks their event loop too. On PostgreSQL a batch runs
 * in the database server while requests go on, but where the server shares the
 * machine (as on the benchmark's two cores) its work takes CPU the requests would
 * have used: the server's purge there takes a tenth of the time. Its batches cost
 * the database 2-3 µs of CPU a row (kysely/purge.ts), so a tenth still deleted
 * 10,400-15,600 tokens a second under the benchmark's load, twice what its
 * busiest token endpoint issued (docs/performance.md). By hand it only yields.
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
 * A purge batch's own work takes milliseconds: on SQLite 2.9 ms median and 100 ms at
 * most, with a WAL checkpoint, among a million dead tokens (`bench/purge-batches.ts`,
 * README, Durability), which under load rests 113 ms and a second. A batch that took
 * seconds spent them waiting, on SQLite for another process's write lock on the file
 * (up to busy_timeout, 5 s): that held the event loop once and will not again, yet
 * the purge, at a twentieth then, rested nineteen times as long, a minute and a
 * half, before its next batch.
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
