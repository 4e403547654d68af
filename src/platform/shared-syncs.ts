/**
 * Shares fsyncs among callers: a caller waits for an fsync that began after it called;
 * those who arrive during one share the next, begun as soon as it ends.
 */
export function sharedSyncs(syncOnce: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const sync = syncOnce().finally(() => {
      if (running === sync) running = undefined;
    });
    running = sync;
    return sync;
  };
  return () => {
    if (running === undefined) return start();
    next ??= running.catch(() => {}).then(() => {
      next = undefined;
      return start();
    });
    return next;
  };
}
