// Writes and look-ups that arrive while one of their kind is under way wait for
// it, then go together as the next: one transaction (and on SQLite one fsync, on
// PostgreSQL one round trip per statement) serves many requests where each had its
// own. Without it the token endpoint's rows fall far below their targets on both
// databases. A batch starts at once when nothing is under way, so a lone request
// waits for nothing.
import { StorageUnavailableError, toStorageError } from '../errors.ts';

/** Runs items together; one outcome per item, in order. */
export type RunBatch<Item, Outcome> = (items: readonly Item[]) => Promise<Outcome[]>;

interface Waiting<Item, Outcome> {
  item: Item;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** Items in one batch at most, which bounds the statements' parameter lists. */
const MAX_BATCH = 64;

export class Batches<Item, Outcome> {
  private waiting: Waiting<Item, Outcome>[] | undefined;

  /**
   * `mayJoin` may keep an item out of a batch that already holds others; it goes
   * in a later one (two requests spending one refresh token must not share a batch:
   * both would see it spent by that batch's own UPDATE).
   */
  constructor(
    private readonly run: RunBatch<Item, Outcome>,
    private readonly mayJoin: (item: Item, batch: readonly Item[]) => boolean = () => true,
  ) {}

  submit(item: Item): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const entry = { item, resolve, reject };
      if (this.waiting !== undefined) {
        this.waiting.push(entry);
        return;
      }
      this.waiting = [];
      void this.send([entry]);
    });
  }

  private async send(batch: Waiting<Item, Outcome>[]): Promise<void> {
    await this.settle(batch);
    const queue = this.waiting!;
    if (queue.length === 0) {
      this.waiting = undefined;
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
    this.waiting = later;
    void this.send(next);
  }

  /**
   * Each item hears its own outcome. When a batch fails, each of its items runs
   * again alone, so one that cannot be written fails alone; unless the database is
   * unavailable, which no item caused, and run again each would only wait out
   * another query timeout before failing the same way.
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

/**
 * Look-ups by key that arrive while one is under way read together, `key in (...)`:
 * on PostgreSQL a refresh reads its refresh token and a code exchange its code
 * before writing, and sharing that round trip carries the refresh row.
 */
export function lookingUpTogether<Row>(readMany: (keys: string[]) => Promise<Row[]>, keyOf: (row: Row) => string): (key: string) => Promise<Row | undefined> {
  const batches = new Batches<string, Row | undefined>(async (keys) => {
    const byKey = new Map((await readMany([...new Set(keys)])).map((row) => [keyOf(row), row]));
    return keys.map((key) => byKey.get(key));
  });
  return (key) => batches.submit(key);
}
