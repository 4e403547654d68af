// Opens the database named by FOLIO_DATABASE_URL (DESIGN §4): a SQLite file path,
// `sqlite::memory:`, or a postgres:// URL.
import { createKyselyStorage } from './kysely/storage.ts';
import { migrateToLatest } from './migrations/provider.ts';
import type { Storage } from './stores.ts';

export interface OpenedStorage extends Storage {
  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** What in the database server's own settings works against Folio, one sentence each; none on SQLite. */
  settingWarnings(): Promise<string[]>;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const SQLITE_PREFIX = 'sqlite:';

export interface OpenOptions {
  /** PostgreSQL connections at most (FOLIO_DATABASE_POOL_SIZE); SQLite has one. */
  poolSize?: number;
  /** PostgreSQL: told when other instances' changes can be heard (true) and when they cannot (false). */
  onChangeNotices?: (listening: boolean) => void;
}

export async function openStorage(databaseUrl: string, options: OpenOptions = {}): Promise<OpenedStorage> {
  // Only the driver in use is loaded: each weighs megabytes of resident memory.
  if (POSTGRES_URL.test(databaseUrl)) {
    const { createPostgresKysely } = await import('./postgres-dialect.ts');
    const storage = createKyselyStorage(createPostgresKysely(databaseUrl, { poolSize: options.poolSize, onChangeNotices: options.onChangeNotices }), 'postgres');
    return { ...storage, migrate: () => migratePostgres(databaseUrl) };
  }
  const filename = databaseUrl.startsWith(SQLITE_PREFIX) ? databaseUrl.slice(SQLITE_PREFIX.length) : databaseUrl;
  if (filename.length === 0) throw new Error('the database URL names no SQLite file');
  const { createSqliteKysely } = await import('./sqlite-dialect.ts');
  return createKyselyStorage(createSqliteKysely(filename), 'sqlite');
}

/** On connections of its own without the query time bound: building an index on a big table takes a while. */
async function migratePostgres(databaseUrl: string): Promise<void> {
  const { createPostgresKysely } = await import('./postgres-dialect.ts');
  const db = createPostgresKysely(databaseUrl, { queryTimeout: false });
  try {
    await migrateToLatest(db, 'postgres');
  } finally {
    await db.destroy();
  }
}
