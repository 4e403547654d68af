// PostgreSQL: look-ups by key that arrive while one of their kind is in flight go
// together as the next, one `key = any($1)` statement. A refresh reads its refresh
// token and a code exchange its code before writing; with the writes in batches
// too (token-exchanges-postgres.ts), each shares both round trips with the
// requests beside it. A read takes no lock, so any two may share a statement,
// and one sent after a write has committed sees it.
import { type Expression, type Kysely, sql } from 'kysely';
import type { Database, StorageKind } from '../schema.ts';
import { type Compilable, type PreparedQuery, prepared } from './prepared.ts';
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

/**
 * The prepared look-up of a row by its unique text key: in batches on PostgreSQL
 * (above), one statement a key on SQLite, whose reads cost no round trip. `select`
 * compares the key column with `key`, which is the key itself or, on PostgreSQL,
 * `any(...)` of the batch's keys; `keyOf` reads the key back from a row.
 */
export function lookingUpByKey<Row>(
  db: Kysely<Database>,
  kind: StorageKind,
  select: (key: string | Expression<string>) => Compilable<Row>,
  keyOf: (row: Row) => string,
): PreparedQuery<Row, [key: string]> {
  if (kind !== 'postgres') return prepared(db, (key: string) => select(key));
  return lookingUpInBatches(prepared(db, (keys: string[]) => select(sql<string>`any(${keys}::text[])`)), keyOf);
}
