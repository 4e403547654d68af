// Background work that shares the event loop (and the database) with requests
// runs in short steps and rests between them, so it takes a bounded share of the time.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleepFor } from 'node:timers/promises';

export interface PacerOptions {
  /** The share of the time the work may take, above 0 and at most 1. */
  share: number;
  /**
   * The share it may take instead after a rest during which the event loop was
   * otherwise idle (busy less than IDLE_LOOP_UTILIZATION of the time): nothing is
   * waiting that a step would delay, beyond a request arriving during one. `share`
   * by default. The first rest, with nothing measured yet, takes `share`.
   */
  idleShare?: number;
  /**
   * Starts a measurement of the event loop and returns what reads it: the share
   * of the time since then that the loop was busy. performance.eventLoopUtilization
   * by default.
   */
  measureLoop?: () => () => number;
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

/** Below this, the loop counts as idle: a request now and then, not a load. */
const IDLE_LOOP_UTILIZATION = 0.1;

function measureEventLoop(): () => number {
  const start = performance.eventLoopUtilization();
  return () => performance.eventLoopUtilization(start).utilization;
}

/**
 * Returns a pause that, awaited after each step, rests long enough for the work
 * since the previous pause to be `share` of the time (`idleShare` after a rest
 * during which the loop was idle): a step of 2 ms at a share of 0.1 is followed
 * by 18 ms of rest, unless `maxRestMs` is shorter. At a share of 1 it still
 * yields once, so requests waiting meanwhile are served between two steps.
 */
export function pacer(options: PacerOptions): Pause {
  const idleShare = options.idleShare ?? options.share;
  for (const [name, value] of [['share', options.share], ['idle share', idleShare]] as const) {
    if (!(value > 0 && value <= 1)) throw new RangeError(`a pacer's ${name} must be above 0 and at most 1, got ${value}`);
  }
  const measureLoop = options.measureLoop ?? measureEventLoop;
  const maxRestMs = options.maxRestMs ?? Number.POSITIVE_INFINITY;
  if (!(maxRestMs >= 0)) throw new RangeError(`a pacer's longest rest must be at least 0, got ${options.maxRestMs}`);
  const now = options.monotonicMs ?? (() => performance.now());
  const { signal } = options;
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms, undefined, { signal }));
  let resumed = now();
  let share = options.share;
  return async () => {
    signal?.throwIfAborted();
    const worked = Math.max(0, now() - resumed);
    const loopBusy = measureLoop();
    await sleep(Math.min(worked * (1 / share - 1), maxRestMs));
    signal?.throwIfAborted();
    // A rest too short to measure (NaN) says nothing of idleness.
    share = loopBusy() < IDLE_LOOP_UTILIZATION ? idleShare : options.share;
    resumed = now();
  };
}
