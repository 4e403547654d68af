// Background work that shares the event loop (and the database) with requests
// runs in short steps and rests between them, so it takes a bounded share of the time.
import { setTimeout as sleepFor } from 'node:timers/promises';

export interface PacerOptions {
  /** The share of the time the work may take, above 0 and at most 1. */
  share: number;
  /**
   * The longest rest, however long the step took: a step that mostly waited (for
   * a lock, a connection) did not work that long, and the next will not hold the
   * event loop for it again. Unbounded by default.
   */
  maxRestMs?: number;
  /** A monotonic clock in milliseconds; performance.now by default. */
  monotonicMs?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Aborting it makes the current and every later pause reject, so the work stops at its next step. */
  signal?: AbortSignal;
}

/** What to await between two steps of background work. */
export type Pause = () => Promise<void>;

/**
 * Returns a pause that, awaited after each step, rests long enough for the work
 * since the previous pause to be `share` of the time: a step of 2 ms at a share
 * of 0.1 is followed by 18 ms of rest, unless `maxRestMs` is shorter. At a share
 * of 1 it still yields once, so requests waiting meanwhile are served between two steps.
 */
export function pacer(options: PacerOptions): Pause {
  if (!(options.share > 0 && options.share <= 1)) throw new RangeError(`a pacer's share must be above 0 and at most 1, got ${options.share}`);
  const maxRestMs = options.maxRestMs ?? Number.POSITIVE_INFINITY;
  if (!(maxRestMs >= 0)) throw new RangeError(`a pacer's longest rest must be at least 0, got ${options.maxRestMs}`);
  const now = options.monotonicMs ?? (() => performance.now());
  const { signal } = options;
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms, undefined, { signal }));
  let resumed = now();
  return async () => {
    signal?.throwIfAborted();
    const worked = Math.max(0, now() - resumed);
    await sleep(Math.min(worked * (1 / options.share - 1), maxRestMs));
    signal?.throwIfAborted();
    resumed = now();
  };
}
