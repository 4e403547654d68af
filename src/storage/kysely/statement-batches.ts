// PostgreSQL: token issues (and look-ups) that arrive while a statement of theirs
// is in flight wait for it, then go together as the next one. One statement, one
// round trip and one commit then serve many, where each had its own (docs/performance.md).
// Items with different keys do not wait for each other:
// token-issue-postgres.ts keys client_credentials saves by grant, and sends
// every rotation (and every code exchange) under one key; lookup-batches.ts
// sends every look-up of a kind under one.

import { StorageUnavailableError, toStorageError } from '../errors.ts';

/** Runs items as one statement; one outcome per item, in order. */
export type RunBatch<Item, Outcome> = (items: readonly Item[]) => Promise<Outcome[]>;

interface Waiting<Item, Outcome> {
  item: Item;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** Items in one statement at most: their rows or keys travel as one parameter. */
const MAX_BATCH = 64;

/** The key of batches that may hold any item of their kind. */
export const ONE_QUEUE = 0;

export class StatementBatches<Item, Outcome> {
  /** Per key with a statement in flight, the items waiting for the next one. */
  private readonly waiting = new Map<number, Waiting<Item, Outcome>[]>();

  /**
   * `mayJoin` may keep an item out of a batch that already holds others; it
   * goes in a later one (two requests spending one refresh token must not share
   * a statement: both would see it spent by that statement's own UPDATE).
   */
  constructor(
    private readonly run: RunBatch<Item, Outcome>,
    private readonly mayJoin: (item: Item, batch: readonly Item[]) => boolean = () => true,
  ) {}

  submit(key: number, item: Item): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const entry = { item, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue !== undefined) {
        queue.push(entry);
        return;
      }
      this.waiting.set(key, []);
      void this.send(key, [entry]);
    });
  }

  private async send(key: number, batch: Waiting<Item, Outcome>[]): Promise<void> {
    await this.settle(batch);
    const queue = this.waiting.get(key)!;
    if (queue.length === 0) {
      this.waiting.delete(key);
      return;
    }
    const next: Waiting<Item, Outcome>[] = [];
    const items: Item[] = [];
    const later: Waiting<Item, Outcome>[] = [];
    for (const entry of queue) {
      if (next.length < MAX_BATCH && this.mayJoin(entry.item, items)) {
        next.push(entry);
        items.push(entry.item);
      } else {
        later.push(entry);
      }
    }
    this.waiting.set(key, later);
    void this.send(key, next);
  }

  /**
   * Each item hears its own outcome. When the statement throws, each item of a
   * larger batch is run again alone, so one that cannot be run fails alone;
   * unless the database is unavailable, which no item caused: run again, each
   * would only wait out another query bound before failing the same way (a
   * request that had waited for the batch before it took three bounds, 9 s,
   * where the database-outage test allows 8).
   */
  private async settle(batch: Waiting<Item, Outcome>[]): Promise<void> {
    try {
      const outcomes = await this.run(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(outcomes[index]!));
    } catch (error) {
      if (batch.length === 1 || toStorageError(error) instanceof StorageUnavailableError) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      await Promise.all(batch.map(async (entry) => {
        try {
          const [outcome] = await this.run([entry.item]);
          entry.resolve(outcome!);
        } catch (alone) {
          entry.reject(alone);
        }
      }));
    }
  }
}
