// PostgreSQL: look-ups by key that arrive while one of their kind is in flight go
// together as the next, one `key = any($1)` statement. A refresh reads its refresh
// token and a code exchange its code before writing; with the writes in batches
// too (token-exchanges-postgres.ts), each shares both round trips with the
// requests beside it. A read takes no lock, so any two may share a statement,
// and one sent after a write has committed sees it.
import { ONE_QUEUE, StatementBatches } from './statement-batches.ts';

/** Looks `key` up with the others waiting, through `readMany`; the rows found for it, as a single look-up answers. */
export function lookingUpInBatches<Row>(readMany: (keys: string[]) => Promise<Row[]>, keyOf: (row: Row) => string): (key: string) => Promise<Row[]> {
  const batches = new StatementBatches<string, Row[]>(async (keys) => {
    const byKey = new Map((await readMany([...new Set(keys)])).map((row) => [keyOf(row), row]));
    return keys.map((key) => {
      const row = byKey.get(key);
      return row === undefined ? [] : [row];
    });
  });
  return (key) => batches.submit(ONE_QUEUE, key);
}
