import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { purgePace } from '../../src/maintenance.ts';
import type { Storage } from '../../src/storage/stores.ts';

/** The rests that follow purge batches of `batchMs`, one a rest, for a database and a mode; `loopBusy` is what the loop did during each rest. */
async function restsAfterBatches(kind: Storage['kind'], mode: 'background' | 'byHand', batchMs: number, loopBusy: number[]) {
  let clock = 0;
  const rests: number[] = [];
  const busy = [...loopBusy];
  const pause = purgePace(kind, mode, {
    monotonicMs: () => clock, sleep: async (ms) => { rests.push(ms); },
    measureLoop: () => { const reading = busy.shift()!; return () => reading; },
  });
  for (let batch = 0; batch < loopBusy.length; batch++) {
    clock += batchMs;
    await pause();
  }
  return rests.map((ms) => Math.round(ms * 1000) / 1000);
}

/** The rest after one batch, the loop busy with requests. */
const restAfterBatch = async (kind: Storage['kind'], mode: 'background' | 'byHand', batchMs: number) =>
  (await restsAfterBatches(kind, mode, batchMs, [0.9]))[0];

describe('purge pace', () => {
  test("on SQLite the server's purge takes at most a fortieth of the time under load, since its batches block requests", async () => {
    assert.equal(await restAfterBatch('sqlite', 'background', 2), 78);
  });

  test("the server's purge takes a quarter of the time while the loop is otherwise idle, on both databases, and its share again under load", async () => {
    assert.deepEqual(await restsAfterBatches('sqlite', 'background', 2, [0.02, 0.02, 0.9, 0.5]), [78, 6, 6, 78]);
    assert.deepEqual(await restsAfterBatches('postgres', 'background', 2, [0.02, 0.5]), [18, 6]);
  });

  test('a purge by hand keeps its share however idle the loop: there are no requests to make way for', async () => {
    assert.deepEqual(await restsAfterBatches('sqlite', 'byHand', 2, [0, 0]), [2, 2]);
    assert.deepEqual(await restsAfterBatches('postgres', 'byHand', 2, [0, 0]), [0, 0]);
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
    assert.equal(await restAfterBatch('sqlite', 'background', 20), 780);
  });
});
