import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { purgePace } from '../../src/maintenance.ts';
import type { Storage } from '../../src/storage/stores.ts';

/** The rest that follows one purge batch of `batchMs`, for a database and a mode. */
async function restAfterBatch(kind: Storage['kind'], mode: 'background' | 'byHand', batchMs: number) {
  let clock = 0;
  const rests: number[] = [];
  const pause = purgePace(kind, mode, { monotonicMs: () => clock, sleep: async (ms) => { rests.push(ms); } });
  clock += batchMs;
  await pause();
  return Math.round(rests[0]! * 1000) / 1000;
}

describe('purge pace', () => {
  test("on SQLite the server's purge takes at most a twentieth of the time, since its batches block requests", async () => {
    assert.equal(await restAfterBatch('sqlite', 'background', 2), 38);
  });

  test('on SQLite a purge by hand takes half the time, leaving the write lock to a server on the same file', async () => {
    assert.equal(await restAfterBatch('sqlite', 'byHand', 2), 2);
  });

  test("on PostgreSQL the server's purge takes a tenth of the time, leaving the database's share of the CPU to requests", async () => {
    assert.equal(await restAfterBatch('postgres', 'background', 2), 18);
  });

  test('on PostgreSQL a purge by hand only yields between batches', async () => {
    assert.equal(await restAfterBatch('postgres', 'byHand', 2), 0);
  });

  test("a batch that waited seconds (for another process's write lock) rests a second at most", async () => {
    assert.equal(await restAfterBatch('sqlite', 'background', 5000), 1000);
    assert.equal(await restAfterBatch('sqlite', 'byHand', 5000), 1000);
    assert.equal(await restAfterBatch('postgres', 'background', 5000), 1000);
    // Below the bound the share alone decides.
    assert.equal(await restAfterBatch('sqlite', 'background', 50), 950);
  });
});
