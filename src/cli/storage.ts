import type { Config } from '../config.ts';
import { openStorage } from '../storage/open.ts';
import type { Storage } from '../storage/stores.ts';

/** Opens the configured database, brings its schema up to date, runs `use`, and closes it. */
export async function withStorage<T>(config: Config, use: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage(config.databaseUrl);
  try {
    await storage.migrate();
    return await use(storage);
  } finally {
    await storage.close();
  }
}
