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

  test('after a rest during which the event loop was otherwise idle, takes the idle share; the share again once it is busy', async () => {
    let clock = 0;
    const rests: number[] = [];
    // What the loop was busy with during each rest, in turn; NaN for a rest too short to measure.
    const busy = [0.05, 0.5, Number.NaN, 0.099];
    const pause = pacer({
      share: 0.1, idleShare: 0.5, monotonicMs: () => clock, sleep: async (ms) => { rests.push(ms); clock += ms; },
      measureLoop: () => { const reading = busy.shift()!; return () => reading; },
    });
    for (let step = 0; step < 5; step++) {
      clock += 2;
      await pause();
    }
    // The first rest has nothing measured before it: the share, not the idle share.
    assert.deepEqual(rests.map((ms) => Math.round(ms * 1000) / 1000), [18, 2, 18, 18, 2]);
  });

  test('measures the event loop itself by default: busy while the rest is taken up by other work', async () => {
    const rests: number[] = [];
    let clock = 0;
    const pause = pacer({
      share: 0.5, idleShare: 1, monotonicMs: () => clock,
      sleep: async (ms) => {
        rests.push(ms);
        // Held by other work, or spent waiting on a timer (long enough that the
        // loop's own bookkeeping around it stays well under the idle threshold).
        if (busy) for (const until = performance.now() + 20; performance.now() < until;);
        else await new Promise((resolve) => setTimeout(resolve, 200));
      },
    });
    let busy = true;
    clock += 10;
    await pause();
    clock += 10;
    await pause();
    assert.deepEqual(rests, [10, 10], 'busy: the share');
    busy = false;
    // The rest after the busy ones takes the share; the loop is measured idle
    // during it, and the next rest takes the idle share, which only yields. A
    // process descheduled while its loop is awake (a loaded CI machine) reads as
    // busy, so the idle reading has a few tries; a pacer that never read the loop
    // would never see it idle.
    clock += 10;
    await pause();
    for (let tries = 0; tries < 4 && rests.at(-1) !== 0; tries++) {
      clock += 10;
      await pause();
    }
    assert.equal(rests[2], 10, 'busy before: the share');
    assert.equal(rests.at(-1), 0, `idle: the idle share, which only yields (rests ${rests.join(', ')})`);
  });

  test('refuses a share or an idle share outside (0, 1], and a negative longest rest', () => {
    for (const share of [0, -0.5, 1.5, Number.NaN]) assert.throws(() => pacer({ share }), RangeError);
    for (const idleShare of [0, 1.5, Number.NaN]) assert.throws(() => pacer({ share: 0.5, idleShare }), RangeError);
    for (const maxRestMs of [-1, Number.NaN]) assert.throws(() => pacer({ share: 0.5, maxRestMs }), RangeError);
  });
});
