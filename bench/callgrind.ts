// Reading valgrind's callgrind output: the instructions a window of requests
// took, and how many of them a V8 background job spent, which is not the
// requests' own work.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The `totals:` line of a callgrind dump: every instruction counted in it. */
export function totalInstructions(dump: string): number {
  const match = /^totals: (\d+)/m.exec(dump);
  if (match === null) throw new Error('not a callgrind dump: it has no totals line');
  return Number(match[1]);
}

/**
 * The largest inclusive count `callgrind_annotate --inclusive=yes` gives a
 * function whose line matches `pattern`, or 0. The largest, since a recursive
 * function is listed once per depth ('2, '3 ...) and its outermost entry holds the rest.
 */
export function inclusiveInstructions(annotated: string, pattern: RegExp): number {
  let largest = 0;
  for (const line of annotated.split('\n')) {
    const count = /^\s*([\d,]+) /.exec(line);
    if (count !== null && pattern.test(line)) largest = Math.max(largest, Number(count[1]!.replaceAll(',', '')));
  }
  return largest;
}

/**
 * TurboFan compiles on background threads while requests go on. Which window
 * of requests it lands in depends on thread scheduling, so it is counted apart
 * from the requests' own instructions.
 */
export const OPTIMIZING_COMPILER = /v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal\(/;

/**
 * Objects moved from a deprecated map to its replacement. Under callgrind a
 * server sometimes settles with an object literal on V8's slow path (seen with
 * Node 20's own process.nextTick), migrating objects on every request: a state
 * of that process, not of the build, worth a fifth of a GET (docs/performance.md).
 */
export const MAP_MIGRATION = /v8::internal::JSObject::MigrateToMap\(/;

/**
 * Every event's total in a callgrind dump, by the names its `events:` line gives:
 * Ir alone, or with --cache-sim=yes also the simulated first-level misses (I1mr,
 * D1mr, D1mw) and last-level ones (ILmr, DLmr, DLmw).
 */
export function eventTotals(dump: string): Record<string, number> {
  const names = /^events: (.+)$/m.exec(dump)?.[1]?.trim().split(/\s+/);
  const totals = /^totals: (.+)$/m.exec(dump)?.[1]?.trim().split(/\s+/).map(Number);
  if (names === undefined || totals === undefined) throw new Error('not a callgrind dump: it has no events or totals line');
  return Object.fromEntries(names.map((name, index) => [name, totals[index] ?? 0]));
}

export interface WindowCount {
  total: number;
  /** The dump's totals by event (eventTotals). */
  events: Record<string, number>;
  /** Instructions of TurboFan's background compilation within the total. */
  compiling: number;
  /** Instructions spent migrating objects between maps within the total. */
  migrating: number;
}

export function countWindow(dumpFile: string): WindowCount {
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dumpFile], { maxBuffer: 1 << 28 }).toString();
  const dump = readFileSync(dumpFile, 'utf8');
  return {
    total: totalInstructions(dump),
    events: eventTotals(dump),
    compiling: inclusiveInstructions(annotated, OPTIMIZING_COMPILER),
    migrating: inclusiveInstructions(annotated, MAP_MIGRATION),
  };
}
