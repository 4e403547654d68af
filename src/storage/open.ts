// Opens the database named by FOLIO_DATABASE_URL (DESIGN §4): a SQLite file path,
// `sqlite::memory:`, or a postgres:// URL.
import { createPostgresKysely, createSqliteKysely } from './dialects.ts';
import { createKyselyStorage } from './kysely/storage.ts';
import type { Storage } from './stores.ts';

export interface OpenedStorage extends Storage {
  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const SQLITE_PREFIX = 'sqlite:';

export async function openStorage(databaseUrl: string): Promise<OpenedStorage> {
  if (POSTGRES_URL.test(databaseUrl)) {
    return createKyselyStorage(createPostgresKysely(databaseUrl), 'postgres');
  }
  const filename = databaseUrl.startsWith(SQLITE_PREFIX) ? databaseUrl.slice(SQLITE_PREFIX.length) : databaseUrl;
  if (filename.length === 0) throw new Error('the database URL names no SQLite file');
  return createKyselyStorage(createSqliteKysely(filename), 'sqlite');
}
