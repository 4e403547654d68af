// SQLite statements run without Kysely's connection queue (src/storage/direct-statements.ts):
// the same results as through Kysely, and never beside a transaction someone else holds.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { databaseChanges } from '../../src/storage/database-changes.ts';
import { createSqliteKysely, SQLITE_MEMORY } from '../../src/storage/dialects.ts';
import { directStatements } from '../../src/storage/direct-statements.ts';
import { migrateToLatest } from '../../src/storage/migrations/provider.ts';
import type { Database } from '../../src/storage/schema.ts';
import { prepared } from '../../src/storage/kysely/prepared.ts';
import { groupCommit } from '../../src/storage/kysely/transactions.ts';

describe('direct statements on SQLite', () => {
  let db: Kysely<Database>;
  beforeEach(async () => {
    db = createSqliteKysely(SQLITE_MEMORY);
    await migrateToLatest(db, 'sqlite');
  });
  afterEach(async () => { await db.destroy(); });

  const insertUser = (email: string) => db.insertInto('users').values({ email, name: email, password_hash: 'x', created_at: 1, updated_at: 1 }).compile();
  const selectUser = (email: string) => db.selectFrom('users').select(['id', 'email']).where('email', '=', email);
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('gives the results Kysely gives, for writes and for reads', async () => {
    const direct = directStatements(db)!;
    assert.deepEqual(direct.run(insertUser('direct@example.test')), { numAffectedRows: 1n, insertId: 1n, rows: [] });
    assert.deepEqual(await db.executeQuery(insertUser('kysely@example.test')), { numAffectedRows: 1n, insertId: 2n, rows: [] });
    const query = selectUser('kysely@example.test').compile();
    assert.deepEqual(direct.run(query), await db.executeQuery(query));
    assert.deepEqual(direct.run(query).rows, [{ id: 2, email: 'kysely@example.test' }]);
  });

  it('keeps a read out of a transaction that holds the connection: it waits, and sees nothing rolled back', async () => {
    const read = prepared(db, selectUser);
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const transaction = db.transaction().execute(async (trx) => {
      await trx.executeQuery(insertUser('uncommitted@example.test'));
      await held;
      throw new Error('rolled back');
    });
    await nextTurn();
    const reading = read('uncommitted@example.test');
    release();
    await assert.rejects(transaction, /rolled back/);
    assert.deepEqual(await reading, []);
  });

  it('keeps a read from running while a streamed read is under way: it waits for the stream to end', async () => {
    await db.executeQuery(insertUser('first@example.test'));
    await db.executeQuery(insertUser('second@example.test'));
    const read = prepared(db, selectUser);
    const stream = db.selectFrom('users').select('email').orderBy('id').stream()[Symbol.asyncIterator]();
    assert.deepEqual((await stream.next()).value, { email: 'first@example.test' });
    let answered = false;
    const reading = read('second@example.test').then((rows) => { answered = true; return rows; });
    await nextTurn();
    assert.equal(answered, false);
    assert.deepEqual((await stream.next()).value, { email: 'second@example.test' });
    await stream.return!();
    assert.deepEqual(await reading, [{ id: 2, email: 'second@example.test' }]);
  });

  it('answers a read at once while the connection is held outside any transaction', async () => {
    const read = prepared(db, selectUser);
    await db.executeQuery(insertUser('committed@example.test'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const holding = db.connection().execute(() => held);
    await nextTurn();
    // Through Kysely the read would wait for the connection, and this would time out.
    const answered = await Promise.race([read('committed@example.test'), new Promise((resolve) => setTimeout(resolve, 200, 'waited'))]);
    release();
    await holding;
    assert.deepEqual(answered, [{ id: 1, email: 'committed@example.test' }]);
  });

  it('counts the group commit\'s writes as changes, so cached reads are refreshed', async () => {
    const changes = databaseChanges(db)!;
    await groupCommit(db)((trx) => trx.executeQuery(insertUser('counted@example.test')));
    const applicationsBefore = changes.applicationsVersion();
    const before = changes.version();
    // Deleting a user cascades to its tokens and portfolios, which the bearer reads hold.
    await groupCommit(db)((trx) => trx.executeQuery(db.deleteFrom('users').where('email', '=', 'counted@example.test').compile()));
    assert.ok(changes.version() > before);
    assert.ok(changes.applicationsVersion() > applicationsBefore);
  });
});
