// How write transactions reach the database. PostgreSQL runs each on its own
// pooled connection and batches fsyncs across them itself; SQLite has one
// writer, and with synchronous=FULL every commit waits for an fsync on the event
// loop's own thread, so one commit per token issue capped throughput at 1/fsync.
// The group commit's transactions fsync on the thread pool instead
// (sqlite-dialect.ts, committingSyncedApart).
import { CompiledQuery, type Kysely } from 'kysely';
import { directStatements, type StatementExecutor } from '../direct-statements.ts';
import type { Database } from '../schema.ts';

/**
 * Runs `work` in a transaction, whose compiled statements it runs on `trx`. Under
 * group commit a work may run twice (the second time after its first transaction
 * was rolled back), so it must write only to the database, through `trx`.
 */
export type RunInTransaction = <T>(work: (trx: StatementExecutor) => Promise<T>) => Promise<T>;

interface Pending {
  work: (trx: StatementExecutor) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A transaction's result, and when it is on disk. */
interface Committed<T> { value: T; durable: Promise<void> }

const ON_DISK_AT_COMMIT = Promise.resolve();

const MAX_BATCH = 256;

// Compiled once: these run around every write of a batch in which a write threw.
const SAVEPOINT = CompiledQuery.raw('savepoint folio_write');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('rollback to savepoint folio_write');
const RELEASE_SAVEPOINT = CompiledQuery.raw('release savepoint folio_write');

/**
 * Group commit: writes that arrive in the same turn of the event loop, or while
 * the batch before is still under way, run in one transaction and share its fsync. Each stands or falls alone: a batch first runs
 * as one plain transaction, and when any of its writes throws, that transaction is
 * rolled back and the batch runs again with each write in a savepoint of its own,
 * where a write that throws is rolled back alone. Savepoints around every write
 * cost a tenth of a token issue's instructions (docs/performance.md), and a write
 * that throws is rare: two requests racing to spend one refresh token or code (a
 * replayed one is refused before any write). Each caller hears
 * back only after the commit holding its writes is durable, so nothing is answered
 * that a crash could take back.
 */
export function groupCommit(db: Kysely<Database>): RunInTransaction {
  let queue: Pending[] = [];
  // The batch's transaction holds Kysely's one connection, so inside it every
  // statement can skip Kysely's path (direct-statements.ts).
  const direct = directStatements(db);

  /** One transaction; its callers may hear back once `durable` resolves. */
  async function inOneTransaction<T>(work: (trx: StatementExecutor) => Promise<T>): Promise<Committed<T>> {
    if (direct === undefined) return { value: await db.transaction().execute(work), durable: ON_DISK_AT_COMMIT };
    // The fsync is awaited after the connection is given back, so that reads need not wait for it.
    return db.connection().execute(() => direct.commitSyncedApart(work));
  }

  async function runTogether(batch: Pending[]): Promise<Committed<Outcome[]>> {
    return inOneTransaction(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const { work } of batch) outcomes.push({ ok: true, value: await work(trx) });
      return outcomes;
    });
  }

  async function runEachInSavepoint(batch: Pending[]): Promise<Committed<Outcome[]>> {
    const outcomes: Outcome[] = [];
    const { durable } = await inOneTransaction(async (trx) => {
      for (const { work } of batch) {
        await trx.executeQuery(SAVEPOINT);
        try {
          outcomes.push({ ok: true, value: await work(trx) });
        } catch (error) {
          await trx.executeQuery(ROLLBACK_TO_SAVEPOINT);
          outcomes.push({ ok: false, error });
        }
        await trx.executeQuery(RELEASE_SAVEPOINT);
      }
    });
    return { value: outcomes, durable };
  }

  async function runBatch(batch: Pending[]): Promise<Outcome[]> {
    let committed: Committed<Outcome[]>;
    try {
      committed = await runTogether(batch);
    } catch (error) {
      // Alone in its batch, the write that threw has been rolled back already.
      if (batch.length === 1) return [{ ok: false, error }];
      committed = await runEachInSavepoint(batch);
    }
    // Awaited only once the batch has committed: a failed fsync fails every write
    // of the batch, which must not run again, as a rolled-back batch does.
    await committed.durable;
    return committed.value;
  }

  // One batch at a time, from its first statement until its commit is on disk:
  // the writes that arrive meanwhile make the next batch, so that each fsync
  // carries one commit, as many writes as it can. Committing them at once would
  // not answer them sooner (an fsync under way may have begun before their commit,
  // wal-sync.ts) and cost a commit each: 0.91x the client_credentials
  // throughput at 50 connections (docs/performance.md).
  let flushing = false;
  const flushSoon = () => {
    if (flushing || queue.length === 0) return;
    flushing = true;
    setImmediate(flush);
  };

  async function flush(): Promise<void> {
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(batch.length);
    let outcomes: Outcome[];
    try {
      outcomes = await runBatch(batch);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    } finally {
      flushing = false;
      flushSoon();
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }

  return <T>(work: (trx: StatementExecutor) => Promise<T>) => new Promise<T>((resolve, reject) => {
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    flushSoon();
  });
}
