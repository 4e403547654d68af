// Shared fsyncs of SQLite's write-ahead log (src/storage/wal-sync.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sharedSyncs } from '../../src/platform/shared-syncs.ts';
import { walSync } from '../../src/storage/sqlite/wal-sync.ts';

/** fsyncs that end only when the test says so, in the order begun. */
function heldSyncs() {
  const begun: Array<{ end(): void; fail(error: Error): void }> = [];
  const syncOnce = () => new Promise<void>((resolve, reject) => { begun.push({ end: resolve, fail: reject }); });
  return { begun, syncOnce };
}
const settled = async (promise: Promise<unknown>) => {
  let state = 'pending';
  promise.then(() => { state = 'resolved'; }, () => { state = 'rejected'; });
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('shared WAL syncs', () => {
  it('makes a caller who arrives during an fsync wait for the next, which everyone arriving then shares', async () => {
    const { begun, syncOnce } = heldSyncs();
    const sync = sharedSyncs(syncOnce);
    const first = sync();
    const second = sync();
    const third = sync();
    assert.equal(begun.length, 1, 'one fsync at a time');
    begun[0]!.end();
    assert.equal(await settled(first), 'resolved');
    assert.equal(await settled(second), 'pending', 'the first fsync may have begun before the second caller wrote');
    assert.equal(begun.length, 2);
    begun[1]!.end();
    assert.deepEqual([await settled(second), await settled(third)], ['resolved', 'resolved']);
    assert.equal(begun.length, 2, 'the callers who arrived together shared one fsync');
  });

  it('begins at once when none is under way, and passes on a failed fsync to its callers only', async () => {
    const { begun, syncOnce } = heldSyncs();
    const sync = sharedSyncs(syncOnce);
    const failing = sync();
    const next = sync();
    begun[0]!.fail(new Error('EIO'));
    await assert.rejects(failing, /EIO/);
    assert.equal(begun.length, 2, 'the next fsync begins though the one before failed');
    begun[1]!.end();
    await next;
    const later = sync();
    assert.equal(begun.length, 3);
    begun[2]!.end();
    await later;
  });

  it('fsyncs the real WAL file beside a database, and refuses once closed', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'folio-wal-'));
    try {
      const database = join(directory, 'folio.db');
      writeFileSync(`${database}-wal`, 'frames');
      const wal = walSync(database);
      await wal.sync();
      await Promise.all([wal.sync(), wal.sync()]);
      await wal.close();
      await assert.rejects(wal.sync(), /closed/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('answers a missing WAL with an error, and opens it when it appears', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'folio-wal-'));
    try {
      const database = join(directory, 'folio.db');
      const wal = walSync(database);
      await assert.rejects(wal.sync(), { code: 'ENOENT' });
      writeFileSync(`${database}-wal`, 'frames');
      await wal.sync();
      await wal.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
