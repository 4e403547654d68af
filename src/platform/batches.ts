// Calls that arrive in the same turn of the event loop, or while a batch of their kind
// is under way, go together as the next batch: one run serves many callers. A lone
// call waits only for the next turn.

interface Waiting<Item, Outcome> {
  item: Item;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** Items in one batch at most, which bounds the statements' parameter lists. */
const MAX_BATCH = 64;

export class Batches<Item, Outcome> {
  private readonly waiting: Waiting<Item, Outcome>[] = [];
  private underWay = false;
  private starting = false;

  /**
   * `mayJoin` may keep an item out of a batch that holds others, for a later one: two
   * requests spending one refresh token would both see it spent by the batch's own
   * UPDATE. One batch is under way at a time, so that each carries as many as it can.
   */
  constructor(
    /** Runs items together; one outcome per item, in order. */
    private readonly run: (items: readonly Item[]) => Promise<Outcome[]>,
    private readonly mayJoin: (item: Item, batch: readonly Item[]) => boolean = () => true,
    /** Whether a batch's error would fail each of its items alone the same way (an outage). */
    private readonly failsEveryItem: (error: unknown) => boolean = () => false,
  ) {}

  submit(item: Item): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.startSoon();
    });
  }

  /** On the next turn of the event loop, so that the items of this turn go together. */
  private startSoon(): void {
    if (this.starting || this.underWay) return;
    this.starting = true;
    setImmediate(() => {
      this.starting = false;
      this.startBatch();
    });
  }

  private startBatch(): void {
    if (this.underWay || this.waiting.length === 0) return;
    const batch: Waiting<Item, Outcome>[] = [];
    const items: Item[] = [];
    for (let index = 0; index < this.waiting.length && batch.length < MAX_BATCH;) {
      const entry = this.waiting[index]!;
      if (batch.length > 0 && !this.mayJoin(entry.item, items)) {
        index++;
        continue;
      }
      batch.push(entry);
      items.push(entry.item);
      this.waiting.splice(index, 1);
    }
    this.underWay = true;
    void this.settle(batch).finally(() => {
      this.underWay = false;
      this.startSoon();
    });
  }

  /**
   * Each item hears its own outcome. When a batch fails, each of its items runs again
   * alone, so one that cannot be done fails alone; unless `failsEveryItem` says each
   * would only fail the same way.
   */
  private async settle(batch: Waiting<Item, Outcome>[]): Promise<void> {
    try {
      const outcomes = await this.run(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(outcomes[index]!));
    } catch (error) {
      if (batch.length === 1 || this.failsEveryItem(error)) {
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
