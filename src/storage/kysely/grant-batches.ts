// PostgreSQL: token issues on one grant that arrive while a statement for that
// grant is in flight wait for it, then go together as the next one. One statement,
// one round trip and one commit then serve many issues, where each had its own
// (README, Performance). Keyed by grant, since each statement locks only the one
// grant row its issues share, as a single issue does: a batch across grants would
// hold one grant's lock while waiting for another's, and could deadlock with a
// deletion that removes several grants.

/** Runs issues on one grant as one statement; one outcome per issue, in order. */
export type RunBatch<Issue, Outcome> = (issues: readonly Issue[]) => Promise<Outcome[]>;

interface Waiting<Issue, Outcome> {
  issue: Issue;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** Issues in one statement at most: the rows travel as one parameter. */
const MAX_BATCH = 64;

export class GrantBatches<Issue, Outcome> {
  /** Per grant with a statement in flight, the issues waiting for the next one. */
  private readonly waiting = new Map<number, Waiting<Issue, Outcome>[]>();

  constructor(private readonly run: RunBatch<Issue, Outcome>) {}

  submit(grantId: number, issue: Issue): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const entry = { issue, resolve, reject };
      const queue = this.waiting.get(grantId);
      if (queue !== undefined) {
        queue.push(entry);
        return;
      }
      this.waiting.set(grantId, []);
      void this.send(grantId, [entry]);
    });
  }

  private async send(grantId: number, batch: Waiting<Issue, Outcome>[]): Promise<void> {
    await this.settle(batch);
    const queue = this.waiting.get(grantId)!;
    if (queue.length === 0) {
      this.waiting.delete(grantId);
      return;
    }
    void this.send(grantId, queue.splice(0, MAX_BATCH));
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
