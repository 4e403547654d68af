// Token writes and look-ups go in batches (src/storage/kysely/batches.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Batches } from '../../src/storage/kysely/batches.ts';

/** A statement runner whose calls stay in flight until `finish` is called for them. */
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

describe('batches', () => {
  it('sends an issue at once, and the issues that arrive meanwhile together after it', async () => {
    const { calls, run } = heldRunner();
    const batches = new Batches(run);
    const first = batches.submit('a');
    const later = ['b', 'c', 'd'].map((issue) => batches.submit(issue));
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a']]);
    calls[0]!.finish();
    assert.equal(await first, 'a written');
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a'], ['b', 'c', 'd']]);
    calls[1]!.finish();
    assert.deepEqual(await Promise.all(later), ['b written', 'c written', 'd written']);
  });

  it('keeps an issue that may not join a batch for the one after it', async () => {
    const { calls, run } = heldRunner();
    const batches = new Batches(run, (issue, batch) => !batch.includes(issue));
    const outcomes = [batches.submit('x'), batches.submit('y'), batches.submit('x'), batches.submit('z'), batches.submit('y')];
    for (let call = 0; call < 3; call++) {
      await turn();
      calls[call]!.finish();
      await turn();
    }
    await Promise.all(outcomes);
    assert.deepEqual(calls.map((call) => call.issues), [['x'], ['y', 'x', 'z'], ['y']]);
  });

  it('runs each issue of a batch that failed again alone, so only the one that cannot be written fails', async () => {
    const { calls, run } = heldRunner((issue) => issue === 'bad');
    const batches = new Batches(run);
    const first = batches.submit('a');
    const later = ['b', 'bad', 'c'].map((issue) => batches.submit(issue).then((value) => value, (error: Error) => error.message));
    await turn();
    calls[0]!.finish();
    await first;
    await turn();
    calls[1]!.finish();
    while (calls.length < 5) await turn();
    calls.slice(2).forEach((call) => call.finish());
    assert.deepEqual(await Promise.all(later), ['b written', 'cannot write bad', 'c written']);
    assert.deepEqual(calls.map((call) => call.issues), [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('fails every issue of a batch at once when the database is unavailable, running none again', async () => {
    const calls: string[][] = [];
    let unavailable = false;
    const batches = new Batches<string, string>(async (issues) => {
      calls.push([...issues]);
      if (unavailable) throw Object.assign(new Error('Query read timeout'), { code: undefined });
      return issues.map((issue) => `${issue} written`);
    });
    const first = batches.submit('a');
    unavailable = true;
    const later = ['b', 'c'].map((issue) => batches.submit(issue).then((value) => value, (error: Error) => error.message));
    assert.equal(await first, 'a written');
    assert.deepEqual(await Promise.all(later), ['Query read timeout', 'Query read timeout']);
    assert.deepEqual(calls, [['a'], ['b', 'c']]);
  });

  it('answers a lone issue whose statement failed with its error, and goes on with the next batch', async () => {
    const { calls, run } = heldRunner((issue) => issue === 'bad');
    const batches = new Batches(run);
    const bad = batches.submit('bad');
    const next = batches.submit('a');
    await turn();
    calls[0]!.finish();
    await assert.rejects(bad, /cannot write bad/);
    await turn();
    calls[1]!.finish();
    assert.equal(await next, 'a written');
  });

  it('puts at most 64 issues in one batch', async () => {
    const { calls, run } = heldRunner();
    const batches = new Batches(run);
    const outcomes = Array.from({ length: 101 }, (_, index) => batches.submit(`i${index}`));
    for (let call = 0; call < 3; call++) {
      await turn();
      calls[call]!.finish();
      await turn();
    }
    await Promise.all(outcomes);
    assert.deepEqual(calls.map((call) => call.issues.length), [1, 64, 36]);
  });
});
