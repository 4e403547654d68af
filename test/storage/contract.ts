// The one storage contract (DESIGN §3): every behaviour is checked against a fresh
// in-memory SQLite, and against PostgreSQL when FOLIO_TEST_POSTGRES_URL is set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import type { Database, StorageKind } from '../../src/storage/schema.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl, withoutPostgres } from '../support/services.ts';

export interface StorageUnderTest {
  storage: OpenedStorage;
  /** Direct access to the tables, for checking what is actually stored. */
  db: Kysely<Database>;
  kind: StorageKind;
  database: OpenDatabase;
}

/** Storage over `database`, with the database at hand for tests that look at rows. */
export function storageOver(database: OpenDatabase): StorageUnderTest {
  return { storage: createStorage(database), db: database.db, kind: database.kind, database };
}

const TABLES_CHILDREN_FIRST: (keyof Database)[] = [
  'access_tokens', 'refresh_tokens', 'authorization_codes', 'consents', 'grants', 'sessions',
  'portfolios', 'applications', 'audit_events', 'login_failures', 'users',
];

export { postgresServerUrl, withoutPostgres };

export function describeStorageContract(title: string, define: (target: () => StorageUnderTest) => void): void {
  describe(`${title} (sqlite)`, () => {
    let current: StorageUnderTest | undefined;
    beforeEach(async () => {
      current = storageOver(openSqlite(':memory:'));
      await current.storage.migrate();
    });
    afterEach(async () => {
      await current?.storage.close();
      current = undefined;
    });
    define(() => current ?? assertUnreachable());
  });

  const serverUrl = postgresServerUrl;
  if (serverUrl) {
    describe(`${title} (postgres)`, () => {
      let current: StorageUnderTest | undefined;
      before(async () => {
        current = storageOver(openPostgres(await migratedDatabaseForThisRun(serverUrl)));
      });
      beforeEach(async () => {
        // DELETE, not TRUNCATE: on tables this small it is some fifty times faster.
        for (const table of TABLES_CHILDREN_FIRST) await current!.db.deleteFrom(table).execute();
      });
      after(async () => {
        await current?.storage.close();
      });
      define(() => current ?? assertUnreachable());
    });
  }
}

// One database per test process (each test file runs in its own), created on first use
// and dropped when the file's tests end, whether they passed or not.
let temporaryDatabase: TemporaryPostgresDatabase | undefined;
let migratedUrl: Promise<string> | undefined;

function migratedDatabaseForThisRun(serverUrl: string): Promise<string> {
  migratedUrl ??= (async () => {
    temporaryDatabase = new TemporaryPostgresDatabase(serverUrl);
    const url = await temporaryDatabase.create();
    const storage = createStorage(openPostgres(url));
    try {
      await storage.migrate();
    } finally {
      await storage.close();
    }
    return url;
  })();
  return migratedUrl;
}

if (postgresServerUrl) {
  after(async () => {
    await temporaryDatabase?.drop();
  });
}

/**
 * Calls `define` for an empty SQLite database in memory and, when
 * FOLIO_TEST_POSTGRES_URL is set, for PostgreSQL: `openDatabase` makes each test
 * a database of its own, unmigrated, for tests of migrations themselves; the
 * PostgreSQL ones are dropped when the file's tests end. The test closes what it opens.
 */
export function forEachEmptyDatabase(define: (kind: StorageKind, openDatabase: () => Promise<OpenDatabase>) => void): void {
  define('sqlite', async () => openSqlite(':memory:'));
  const newPostgresDatabase = temporaryPostgresDatabases();
  if (newPostgresDatabase !== undefined) define('postgres', async () => openPostgres(await newPostgresDatabase()));
}

/**
 * As `forEachEmptyDatabase`, but each new database is given as the URL that Folio
 * opens (`openStorage`), for tests whose database another process opens: on
 * SQLite a file in a temporary directory, removed with it when the file's tests end.
 */
export function forEachEmptyDatabaseUrl(define: (kind: StorageKind, newDatabaseUrl: () => Promise<string>) => void): void {
  const directory = mkdtempSync(join(tmpdir(), 'folio-empty-databases-'));
  after(() => rmSync(directory, { recursive: true, force: true }));
  let files = 0;
  define('sqlite', async () => join(directory, `folio-${files++}.db`));
  const newPostgresDatabase = temporaryPostgresDatabases();
  if (newPostgresDatabase !== undefined) define('postgres', newPostgresDatabase);
}

/** Makes PostgreSQL databases of their own, dropped when the file's tests end; none unless FOLIO_TEST_POSTGRES_URL is set. */
function temporaryPostgresDatabases(): (() => Promise<string>) | undefined {
  const serverUrl = postgresServerUrl;
  if (serverUrl === undefined) return undefined;
  const databases: TemporaryPostgresDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });
  return async () => {
    const database = new TemporaryPostgresDatabase(serverUrl);
    databases.push(database);
    return database.create();
  };
}


/**
 * For tests of PostgreSQL's own behaviour, called in their describe (skipped
 * `withoutPostgres`): a migrated storage on a database of the describe's own, made
 * before its tests and dropped after them, shared by them.
 */
export function migratedPostgresOfItsOwn(): () => StorageUnderTest {
  let current: StorageUnderTest | undefined;
  let database: TemporaryPostgresDatabase | undefined;
  before(async () => {
    database = new TemporaryPostgresDatabase(postgresServerUrl!);
    current = storageOver(openPostgres(await database.create()));
    await current.storage.migrate();
  });
  after(async () => {
    await current?.storage.close();
    await database?.drop();
  });
  return () => current ?? assertUnreachable();
}

/** The names of the migrations a database records as run, in order. */
export async function migrationsRecorded(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

function assertUnreachable(): never {
  throw new Error('storage used outside a test');
}

