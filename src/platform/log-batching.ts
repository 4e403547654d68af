// Log lines reach stdout a few at a time rather than one write per line.

export interface LineSink {
  write(text: string): unknown;
  /** Writes out whatever it holds before returning (sonic-boom's). */
  flushSync?(): void;
  /**
   * Writes out whatever it holds, then `text`, before returning. At exit no
   * asynchronous write finishes: handed to `write`, the last lines could start
   * one (sonic-boom writes at once when idle) that flushSync does not repeat.
   */
  writeSync?(text: string): void;
}

/** How long a line may wait for others to share its write. */
export const LOG_BATCH_WINDOW_MS = 10;
/** Held lines go out at once past this size, whatever the time. */
const LOG_BATCH_MAX_CHARS = 64 * 1024;

/** Batches holding lines not yet handed on, for the one exit listener: each hands them on and flushes its sink. */
const holding = new Set<() => void>();
let exitListening = false;

/**
 * Lines reach `sink` gathered: a line waits at most LOG_BATCH_WINDOW_MS for the
 * others written meanwhile. Each write costs much the same whatever its length
 * (sonic-boom's bookkeeping, and an fs.write handed to libuv's thread pool and
 * answered on the event loop, on the server's one core): one write per
 * access-log line held a bearer GET served from memory at 0.92× the requests a
 * second of this (docs/performance.md). Gathering per turn of the event loop
 * gained nothing: under load most turns serve one request. An exit before the
 * window ends, by process.exit() or by running out of work, still writes the
 * lines: the exit listener hands them to the sink synchronously (writeSync), or
 * hands them on and flushes it.
 */
export function batchedLines(sink: LineSink): LineSink & { flush(callback?: (error?: Error) => void): void } {
  let held = '';
  let timer: NodeJS.Timeout | undefined;
  /** The lines held, no longer held or waited for. */
  const takeHeld = () => {
    clearTimeout(timer);
    timer = undefined;
    holding.delete(atExit);
    const lines = held;
    held = '';
    return lines;
  };
  const handOn = () => {
    const lines = takeHeld();
    if (lines !== '') sink.write(lines);
  };
  const handOnSync = () => {
    const lines = takeHeld();
    if (sink.writeSync !== undefined) {
      sink.writeSync(lines);
      return;
    }
    if (lines !== '') sink.write(lines);
    sink.flushSync?.();
  };
  const atExit = () => {
    // The sink's own exit flush (pino's, for sonic-boom) may already have run.
    try {
      handOnSync();
    } catch { /* a sink that is closed or not yet open: nothing more can be done */ }
  };
  if (!exitListening) {
    exitListening = true;
    process.on('exit', () => {
      for (const pending of [...holding]) pending();
    });
  }
  return {
    write(line: string) {
      held += line;
      if (held.length >= LOG_BATCH_MAX_CHARS) {
        handOn();
      } else if (timer === undefined) {
        holding.add(atExit);
        // Lines alone must never keep the process alive; the exit listener writes them.
        timer = setTimeout(handOn, LOG_BATCH_WINDOW_MS).unref();
      }
      return true;
    },
    flushSync: handOnSync,
    // pino's logger.flush(): hand on what is held, then let the sink flush.
    flush(callback?: (error?: Error) => void) {
      handOn();
      const flushable = sink as { flush?(callback?: (error?: Error) => void): void };
      if (flushable.flush !== undefined) flushable.flush(callback);
      else callback?.();
    },
  };
}
