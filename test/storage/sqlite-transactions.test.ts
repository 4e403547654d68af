// SQLite transactions beside another process on the same file (a second server, or
// the CLI). A transaction that begins by reading holds only a snapshot; in WAL
// mode, once another process has committed since, its first write fails at once
// with SQLITE_BUSY_SNAPSHOT, whatever busy_timeout says, and the request behind it
// would fail. Transactions therefore take the write lock as they begin, and the
// other process waits its turn instead.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import type { Database } from '../../src/storage/schema.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import { auditEvent } from './fixtures.ts';

describe('SQLite transactions beside another process', () => {
  let directory: string;
  let database: OpenDatabase;
  let db: Kysely<Database>;
  let otherProcess: SqliteDatabase.Database;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'folio-transactions-'));
    database = openSqlite(join(directory, 'folio.db'));
    db = database.db;
    await database.migrate();
    otherProcess = new SqliteDatabase(join(directory, 'folio.db'));
    // Short, so that its wait for the lock ends within the test.
    otherProcess.pragma('busy_timeout = 50');
  });

  afterEach(async () => {
    otherProcess.close();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const otherProcessWrites = () => otherProcess.prepare("insert into audit_events (type, detail, created_at) values ('user.created', '{}', 0)").run();

  it('is not undone by a commit of the other between its read and its write', async () => {
    let otherRefused: unknown;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('audit_events').select('id').execute();
      try {
        otherProcessWrites();
      } catch (error) {
        otherRefused = error;
      }
      const { type, detail, createdAt } = auditEvent('user.created');
      await trx.insertInto('audit_events').values({ type, detail: JSON.stringify(detail), created_at: createdAt }).execute();
    });
    // The other process waited for the lock this transaction held, and would have gone on after it.
    assert.equal((otherRefused as { code?: string } | undefined)?.code, 'SQLITE_BUSY');
    otherProcessWrites();
    assert.equal((await db.selectFrom('audit_events').select('id').execute()).length, 2);
  });

  it("takes the lock from the start in durable transactions too, which begin on a connection held apart", async () => {
    let otherRefused: unknown;
    const { type, detail, createdAt } = auditEvent('user.created');
    await database.durableTransaction(async (trx) => {
      await trx.selectFrom('audit_events').select('id').execute();
      try {
        otherProcessWrites();
      } catch (error) {
        otherRefused = error;
      }
      await trx.insertInto('audit_events').values({ type, detail: JSON.stringify(detail), created_at: createdAt }).execute();
    });
    assert.equal((otherRefused as { code?: string } | undefined)?.code, 'SQLITE_BUSY');
    otherProcessWrites();
    assert.equal((await db.selectFrom('audit_events').select('id').execute()).length, 2);
  });
});
