// PostgreSQL's token issues go in batches (src/storage/kysely/statement-batches.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatementBatches } from '../../src/storage/kysely/statement-batches.ts';

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

describe('grant batches', () => {
  it('sends an issue at once, and the issues on its grant that arrive meanwhile together after it', async () => {
    const { calls, run } = heldRunner();
    const batches = new StatementBatches(run);
    const first = batches.submit(1, 'a');
    const later = ['b', 'c', 'd'].map((issue) => batches.submit(1, issue));
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a']]);
    calls[0]!.finish();
    assert.equal(await first, 'a written');
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a'], ['b', 'c', 'd']]);
    calls[1]!.finish();
    assert.deepEqual(await Promise.all(later), ['b written', 'c written', 'd written']);
  });

  it('does not hold an issue back for a statement of another key', async () => {
    const { calls, run } = heldRunner();
    const batches = new StatementBatches(run);
    const outcomes = [batches.submit(1, 'a'), batches.submit(2, 'b'), batches.submit(1, 'c')];
    await turn();
    assert.deepEqual(calls.map((call) => call.issues), [['a'], ['b']]);
    calls[1]!.finish();
    assert.equal(await outcomes[1], 'b written');
    calls[0]!.finish();
    await outcomes[0];
    await turn();
    calls[2]!.finish();
    assert.equal(await outcomes[2], 'c written');
    assert.deepEqual(calls.map((call) => call.issues), [['a'], ['b'], ['c']]);
  });

  it('keeps an issue that may not join a batch for the one after it', async () => {
    const { calls, run } = heldRunner();
    const batches = new StatementBatches(run, (issue, batch) => !batch.includes(issue));
    const outcomes = [batches.submit(1, 'x'), batches.submit(1, 'y'), batches.submit(1, 'x'), batches.submit(1, 'z'), batches.submit(1, 'y')];
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
    const batches = new StatementBatches(run);
    const first = batches.submit(1, 'a');
    const later = ['b', 'bad', 'c'].map((issue) => batches.submit(1, issue).then((value) => value, (error: Error) => error.message));
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
    const batches = new StatementBatches<string, string>(async (issues) => {
      calls.push([...issues]);
      if (unavailable) throw Object.assign(new Error('Query read timeout'), { code: undefined });
      return issues.map((issue) => `${issue} written`);
    });
    const first = batches.submit(1, 'a');
    unavailable = true;
    const later = ['b', 'c'].map((issue) => batches.submit(1, issue).then((value) => value, (error: Error) => error.message));
    assert.equal(await first, 'a written');
    assert.deepEqual(await Promise.all(later), ['Query read timeout', 'Query read timeout']);
    assert.deepEqual(calls, [['a'], ['b', 'c']]);
  });

  it('answers a lone issue whose statement failed with its error, and goes on with the next batch', async () => {
    const { calls, run } = heldRunner((issue) => issue === 'bad');
    const batches = new StatementBatches(run);
    const bad = batches.submit(1, 'bad');
    const next = batches.submit(1, 'a');
    await turn();
    calls[0]!.finish();
    await assert.rejects(bad, /cannot write bad/);
    await turn();
    calls[1]!.finish();
    assert.equal(await next, 'a written');
  });

  it('puts at most 64 issues in one statement', async () => {
    const { calls, run } = heldRunner();
    const batches = new StatementBatches(run);
    const outcomes = Array.from({ length: 101 }, (_, index) => batches.submit(1, `i${index}`));
    for (let call = 0; call < 3; call++) {
      await turn();
      calls[call]!.finish();
      await turn();
    }
    await Promise.all(outcomes);
    assert.deepEqual(calls.map((call) => call.issues.length), [1, 64, 36]);
  });
});
