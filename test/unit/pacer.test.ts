import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pacer } from '../../src/platform/pacer.ts';

describe('pacer', () => {
  test('rests so that the work between pauses is the given share of the time', async () => {
    let clock = 100;
    const rests: number[] = [];
    const pause = pacer({ share: 0.1, monotonicMs: () => clock, sleep: async (ms) => { rests.push(ms); clock += ms; } });
    clock += 2;
    await pause();
    clock += 5;
    await pause();
    await pause(); // no work since the last pause: no rest
    assert.deepEqual(rests.map((ms) => Math.round(ms * 1000) / 1000), [18, 45, 0]);
  });

  test('at a share of 1 it only yields', async () => {
    let clock = 0;
    const rests: number[] = [];
    const pause = pacer({ share: 1, monotonicMs: () => clock, sleep: async (ms) => { rests.push(ms); } });
    clock += 7;
    await pause();
    assert.deepEqual(rests, [0]);
  });

  test('an aborted signal ends the rest at once and refuses every later pause', async () => {
    let clock = 0;
    const controller = new AbortController();
    const pause = pacer({ share: 0.001, monotonicMs: () => clock, signal: controller.signal });
    clock += 60_000; // a minute of work: a rest of about 17 hours
    const resting = pause();
    controller.abort();
    await assert.rejects(resting, { name: 'AbortError' });
    await assert.rejects(pause(), { name: 'AbortError' });
  });

  test('never rests longer than the longest rest given', async () => {
    let clock = 0;
    const rests: number[] = [];
    const pause = pacer({ share: 0.05, maxRestMs: 100, monotonicMs: () => clock, sleep: async (ms) => { rests.push(ms); clock += ms; } });
    clock += 3;
    await pause();
    clock += 5000; // waited for a lock rather than worked
    await pause();
    clock += 4;
    await pause();
    assert.deepEqual(rests.map((ms) => Math.round(ms * 1000) / 1000), [57, 100, 76]);
  });

  test('refuses a share outside (0, 1] and a negative longest rest', () => {
    for (const share of [0, -0.5, 1.5, Number.NaN]) assert.throws(() => pacer({ share }), RangeError);
    for (const maxRestMs of [-1, Number.NaN]) assert.throws(() => pacer({ share: 0.5, maxRestMs }), RangeError);
  });
});
