import { openStorage, type OpenedStorage } from '../../src/storage/open.ts';

/** A fresh, migrated in-memory SQLite database: nothing is shared between tests. */
export async function createTestStorage(): Promise<OpenedStorage> {
  const storage = await openStorage('sqlite::memory:');
  await storage.migrate();
  return storage;
}
