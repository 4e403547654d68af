// What the tests of reads from memory share: storage on a SQLite file of its own
// (so that a second process can open the same file), two Folio instances on one
// throwaway PostgreSQL database (two sets of connections, each with its own caches
// and listener), and waiting for what another connection's notice brings.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import type { Kysely } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openStorage, type OpenedStorage } from '../../src/storage/open.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import type { Database } from '../../src/storage/schema.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';

/** Polls `check` until it holds, failing after `withinMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, withinMs: number, what: string): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await check())) {
    if (performance.now() > deadline) assert.fail(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Whether a counter stands still, i.e. whether a value read now would be kept. */
export const trusted = (version: () => number): boolean => version() === version();

export interface TwoInstances {
  readonly database: TemporaryPostgresDatabase;
  /** Instance one's database, for its change counters. */
  readonly oneDatabase: OpenDatabase;
  readonly oneDb: Kysely<Database>;
  readonly one: OpenedStorage;
  readonly two: OpenedStorage;
}

/** Two instances, made before the enclosing suite's tests and closed after them. */
export function twoInstancesFor(serverUrl: string | undefined): TwoInstances {
  const database = new TemporaryPostgresDatabase(serverUrl ?? 'postgres://unused');
  let oneDatabase: OpenDatabase | undefined;
  let one: OpenedStorage | undefined;
  let two: OpenedStorage | undefined;
  before(async () => {
    const url = await database.create();
    oneDatabase = openPostgres(url);
    one = createStorage(oneDatabase);
    await one.migrate();
    two = await openStorage(url);
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await database.drop();
  });
  return {
    database,
    get oneDatabase() { return oneDatabase!; },
    get oneDb() { return oneDatabase!.db; },
    get one() { return one!; },
    get two() { return two!; },
  };
}

export interface StorageOnAFile {
  /** The SQLite file, for a second process's storage. */
  readonly file: string;
  readonly storage: OpenedStorage;
}

/** Migrated storage on a fresh SQLite file for each of the enclosing suite's tests. */
export function storageOnAFileFor(): StorageOnAFile {
  let directory: string | undefined;
  let file: string | undefined;
  let storage: OpenedStorage | undefined;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'folio-memory-reads-'));
    file = join(directory, 'folio.db');
    storage = await openStorage(file);
    await storage.migrate();
  });
  afterEach(async () => {
    await storage?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });
  return {
    get file() { return file!; },
    get storage() { return storage!; },
  };
}
