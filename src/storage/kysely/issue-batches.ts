// PostgreSQL: token issues that arrive while a statement of theirs is in flight
// wait for it, then go together as the next one. One statement, one round trip
// and one commit then serve many issues, where each had its own (README,
// Performance). Issues with different keys do not wait for each other:
// token-issue-postgres.ts keys client_credentials saves by grant, and sends
// every rotation (and every code exchange) under one key.

/** Runs issues as one statement; one outcome per issue, in order. */
export type RunBatch<Issue, Outcome> = (issues: readonly Issue[]) => Promise<Outcome[]>;

interface Waiting<Issue, Outcome> {
  issue: Issue;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** Issues in one statement at most: the rows travel as one parameter. */
const MAX_BATCH = 64;

export class IssueBatches<Issue, Outcome> {
  /** Per key with a statement in flight, the issues waiting for the next one. */
  private readonly waiting = new Map<number, Waiting<Issue, Outcome>[]>();

  /**
   * `mayJoin` may keep an issue out of a batch that already holds others; it
   * goes in a later one (two requests spending one refresh token must not share
   * a statement: both would see it spent by that statement's own UPDATE).
   */
  constructor(
    private readonly run: RunBatch<Issue, Outcome>,
    private readonly mayJoin: (issue: Issue, batch: readonly Issue[]) => boolean = () => true,
  ) {}

  submit(key: number, issue: Issue): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const entry = { issue, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue !== undefined) {
        queue.push(entry);
        return;
      }
      this.waiting.set(key, []);
      void this.send(key, [entry]);
    });
  }

  private async send(key: number, batch: Waiting<Issue, Outcome>[]): Promise<void> {
    await this.settle(batch);
    const queue = this.waiting.get(key)!;
    if (queue.length === 0) {
      this.waiting.delete(key);
      return;
    }
    const next: Waiting<Issue, Outcome>[] = [];
    const issues: Issue[] = [];
    const later: Waiting<Issue, Outcome>[] = [];
    for (const entry of queue) {
      if (next.length < MAX_BATCH && this.mayJoin(entry.issue, issues)) {
        next.push(entry);
        issues.push(entry.issue);
      } else {
        later.push(entry);
      }
    }
    this.waiting.set(key, later);
    void this.send(key, next);
  }

  /**
   * Each issue hears its own outcome. When the statement throws, each issue of a
   * larger batch is run again alone, so one that cannot be written fails alone.
   */
  private async settle(batch: Waiting<Issue, Outcome>[]): Promise<void> {
    try {
      const outcomes = await this.run(batch.map((entry) => entry.issue));
      batch.forEach((entry, index) => entry.resolve(outcomes[index]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      await Promise.all(batch.map(async (entry) => {
        try {
          const [outcome] = await this.run([entry.issue]);
          entry.resolve(outcome!);
        } catch (alone) {
          entry.reject(alone);
        }
      }));
    }
  }
}
