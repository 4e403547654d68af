// Token writes and look-ups go in batches (src/platform/batches.ts, src/storage/kysely/batches.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Batches } from '../../src/platform/batches.ts';
import { isOutage } from '../../src/storage/kysely/batches.ts';

/** A batch runner whose calls stay under way until `finish` is called for them. */
function heldRunner(fail: (issue: string) => boolean = () => false) {
  const calls: { issues: string[]; finish(): void }[] = [];
  const run = (issues: readonly string[]) => new Promise<string[]>((resolve, reject) => {
    calls.push({
      issues: [...issues],
      finish: () => (issues.some(fail) ? reject(new Error(`cannot write ${issues.join(', ')}`)) : resolve(issues.map((issue) => `${issue} written`))),
    });
  });
  return { calls, run };
}

const turn = () => new Promise((resolve) => { setImmediate(resolve); });

/** Finishes each call as it comes until every outcome is settled. */
async function finishAll(calls: { finish(): void }[], outcomes: Promise<unknown>[]): Promise<void> {
  let settled = false;
  void Promise.allSettled(outcomes).then(() => { settled = true; });
  let finished = 0;
  while (!settled) {
    await turn();
    while (finished < calls.length) calls[finished++]!.finish();
  }
}

describe('batches', () => {
  it('sends the issues of one turn together, and those that arrive while it is under way together after it', async () => {
    const { calls, run } = heldRunner();
    const batches = new Batches(run);
    const first = ['a', 'b'].map((issue) => batches.submit(issue));
    assert.equal(calls.length, 0, 'nothing is sent before the next turn');
    await turn();
    const later = ['c', 'd'].map((issue) => batches.submit(issue));
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a', 'b']]);
    calls[0]!.finish();
    assert.deepEqual(await Promise.all(first), ['a written', 'b written']);
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a', 'b'], ['c', 'd']]);
    calls[1]!.finish();
    assert.deepEqual(await Promise.all(later), ['c written', 'd written']);
  });

  it('keeps an issue that may not join a batch for the one after it', async () => {
    const { calls, run } = heldRunner();
    const batches = new Batches(run, (issue, batch) => !batch.includes(issue));
    const outcomes = ['x', 'y', 'x', 'z', 'y'].map((issue) => batches.submit(issue));
    await finishAll(calls, outcomes);
    assert.deepEqual(calls.map((call) => call.issues), [['x', 'y', 'z'], ['x', 'y']]);
  });

  it('runs each issue of a batch that failed again alone, so only the one that cannot be written fails', async () => {
    const { calls, run } = heldRunner((issue) => issue === 'bad');
    const batches = new Batches(run);
    const outcomes = ['b', 'bad', 'c'].map((issue) => batches.submit(issue).then((value) => value, (error: Error) => error.message));
    await finishAll(calls, outcomes);
    assert.deepEqual(await Promise.all(outcomes), ['b written', 'cannot write bad', 'c written']);
    assert.deepEqual(calls.map((call) => call.issues), [['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('fails every issue of a batch at once when the database is unavailable, running none again', async () => {
    const calls: string[][] = [];
    const batches = new Batches<string, string>(async (issues) => {
      calls.push([...issues]);
      throw Object.assign(new Error('Query read timeout'), { code: undefined });
    }, undefined, isOutage);
    const outcomes = ['b', 'c'].map((issue) => batches.submit(issue).then((value) => value, (error: Error) => error.message));
    assert.deepEqual(await Promise.all(outcomes), ['Query read timeout', 'Query read timeout']);
    assert.deepEqual(calls, [['b', 'c']]);
  });

  it('answers a lone issue whose batch failed with its error, and goes on with the next batch', async () => {
    const { calls, run } = heldRunner((issue) => issue === 'bad');
    const batches = new Batches(run);
    const bad = batches.submit('bad');
    await turn();
    const next = batches.submit('a');
    await finishAll(calls, [bad.catch(() => undefined), next]);
    await assert.rejects(bad, /cannot write bad/);
    assert.equal(await next, 'a written');
  });

  it('puts at most 64 issues in one batch', async () => {
    const { calls, run } = heldRunner();
    const batches = new Batches(run);
    const outcomes = Array.from({ length: 101 }, (_, index) => batches.submit(`i${index}`));
    await finishAll(calls, outcomes);
    assert.deepEqual(calls.map((call) => call.issues.length), [64, 37]);
  });
});
