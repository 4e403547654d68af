// Two instances starting at once on a new database both migrate it at start, and
// both must come up. On SQLite the migrations run in one transaction that takes the
// write lock as it begins, so the second waits, then finds nothing left to do; on
// PostgreSQL Kysely's migrator holds an advisory lock through its transaction.
// Real processes, since a SQLite lock wait blocks its whole thread. Each is held
// back until both have opened the database, so that they migrate at the same
// moment: with SQLite's migrations run statement by statement, as Kysely ran them,
// six pairs of six had one fail on `table "users" already exists`.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { openPostgres } from '../../src/storage/postgres/postgres-database.ts';
import { SQLITE_MEMORY, openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import { migrateToLatest } from '../../src/storage/migrations/provider.ts';
import type { Database, StorageKind } from '../../src/storage/schema.ts';
import { forEachEmptyDatabaseUrl, migrationsRecorded } from './contract.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

// Opens the database, says so, waits for a line on stdin, then migrates as a start does.
const STARTING_INSTANCE = `import { openStorage } from './src/storage/open.ts';
  const storage = await openStorage(process.argv[1]);
  process.stdout.write('opened\\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  try {
    await storage.migrate();
  } finally {
    await storage.close();
  }
  process.stdin.destroy();`;

interface Instance { child: ChildProcess; opened: Promise<void>; exited: Promise<{ code: number | null; stderr: string }> }

function startInstance(databaseUrl: string): Instance {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', STARTING_INSTANCE, databaseUrl], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  const opened = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('opened\n')) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`the instance exited (${code}) before opening the database: ${stderr}`)));
  });
  return { child, opened, exited };
}

async function startTogether(databaseUrl: string): Promise<Array<{ code: number | null; stderr: string }>> {
  const instances = [startInstance(databaseUrl), startInstance(databaseUrl)];
  await Promise.all(instances.map((instance) => instance.opened));
  for (const { child } of instances) child.stdin!.write('go\n');
  return Promise.all(instances.map((instance) => instance.exited));
}

function describeOn(kind: StorageKind, newDatabaseUrl: () => Promise<string>) {
  describe(`two instances migrating a new database at once (${kind})`, () => {
    it('both start, and every migration runs once', async () => {
      const url = await newDatabaseUrl();
      const outcomes = await startTogether(url);
      for (const { code, stderr } of outcomes) assert.equal(code, 0, stderr);
      assert.deepEqual(await recordedIn(kind === 'sqlite' ? openSqlite(url).db : openPostgres(url).db), await everyMigration());
    });
  });
}

async function recordedIn(db: Kysely<Database>): Promise<string[]> {
  try {
    return await migrationsRecorded(db);
  } finally {
    await db.destroy();
  }
}

/** Every migration's name, once each: what one instance alone records. */
async function everyMigration(): Promise<string[]> {
  const { db } = openSqlite(SQLITE_MEMORY);
  await migrateToLatest(db, 'sqlite');
  return recordedIn(db);
}

forEachEmptyDatabaseUrl(describeOn);
