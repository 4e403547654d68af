// Where the benchmark keeps its databases and files: in the project's .tmp/,
// on the disk that holds the checkout (and data/folio.db, where `npm start` keeps
// Folio's data), not in the system's temporary directory. That is a tmpfs on many
// machines, where SQLite's writes and fsyncs would cost nothing and the benchmark
// would time a durability that no deployment has.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';

const SCRATCH = new URL('../.tmp/', import.meta.url).pathname;

/** A new, empty directory for one run of `tool`, which removes it when done. */
export function makeWorkDirectory(tool: string): string {
  mkdirSync(SCRATCH, { recursive: true });
  return mkdtempSync(join(SCRATCH, `${tool}-`));
}
