// Token writes and look-ups in batches (platform/batches.ts): one transaction (on
// SQLite one fsync, on PostgreSQL one round trip) serves many requests, as the token
// endpoint's throughput needs.
import { Batches } from '../../platform/batches.ts';
import { StorageUnavailableError, toStorageError } from '../errors.ts';

/** A failed batch's items fail with it when the database is unavailable: each run alone would only wait out another timeout. */
export const isOutage = (error: unknown): boolean => toStorageError(error) instanceof StorageUnavailableError;

/**
 * Look-ups by key that arrive while one is under way read together, `key in (...)`:
 * on PostgreSQL a refresh reads its refresh token and a code exchange its code
 * before writing, and sharing that round trip carries the refresh row.
 */
export function lookingUpTogether<Row>(readMany: (keys: string[]) => Promise<Row[]>, keyOf: (row: Row) => string): (key: string) => Promise<Row | undefined> {
  const batches = new Batches<string, Row | undefined>(async (keys) => {
    const byKey = new Map((await readMany([...new Set(keys)])).map((row) => [keyOf(row), row]));
    return keys.map((key) => byKey.get(key));
  }, undefined, isOutage);
  return (key) => batches.submit(key);
}
