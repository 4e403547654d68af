// Opens the database FOLIO_DATABASE_URL names (DESIGN §4): a SQLite file path,
// `sqlite::memory:`, or a postgres:// URL. Only the driver in use is loaded: each
// weighs megabytes of resident memory.
import type { OpenDatabase } from './database.ts';
import type { PostgresOptions } from './postgres/postgres-database.ts';
import { createStorage } from './kysely/storage.ts';
import type { OpenedStorage } from './stores.ts';

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const SQLITE_PREFIX = 'sqlite:';

/** Options for PostgreSQL; SQLite has one connection and hears every change. */
export type OpenOptions = Pick<PostgresOptions, 'poolSize' | 'onChangeNotices'>;

export async function openDatabase(databaseUrl: string, options: OpenOptions = {}): Promise<OpenDatabase> {
  if (POSTGRES_URL.test(databaseUrl)) {
    const { openPostgres } = await import('./postgres/postgres-database.ts');
    return openPostgres(databaseUrl, options);
  }
  const filename = databaseUrl.startsWith(SQLITE_PREFIX) ? databaseUrl.slice(SQLITE_PREFIX.length) : databaseUrl;
  if (filename.length === 0) throw new Error('the database URL names no SQLite file');
  const { openSqlite } = await import('./sqlite/sqlite-database.ts');
  return openSqlite(filename);
}

export async function openStorage(databaseUrl: string, options: OpenOptions = {}): Promise<OpenedStorage> {
  return createStorage(await openDatabase(databaseUrl, options));
}

export type { OpenedStorage } from './stores.ts';
