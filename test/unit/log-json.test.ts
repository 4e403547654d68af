import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createTimeText, jsonValue, millisecondsJson } from '../../src/platform/log-json.ts';

describe('jsonValue', () => {
  test('writes each value as JSON.stringify does, hostile strings and odd numbers included', () => {
    const values: unknown[] = [
      '', 'GET', '/api/v2/portfolios.json?page=2', '127.0.0.1', '::ffff:10.0.0.7', 'req-1a', ' ~!#$%&()*+,-./:;<=>?@[]^_`{|}',
      'say "hi"', 'back\\slash', 'tab\there', 'nul\u0000', 'del\u007f', 'caf\u00e9', 'line\u2028sep', 'lone\ud800', '\udc00', '\u{1f600}',
      0, -0, 1.2345678, 51234, 1e21, 5e-324, -1.5, Number.MAX_SAFE_INTEGER, Number.NaN, Infinity, -Infinity,
      undefined, null, true, false, { a: 1 }, ['x'],
    ];
    for (const code of [0, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xff, 0x100]) values.push(`a${String.fromCharCode(code)}b`);
    for (const value of values) assert.equal(jsonValue(value), JSON.stringify(value), `for ${String(value)}`);
  });

});

describe('millisecondsJson', () => {
  test('writes what JSON.stringify writes for the duration rounded to the microsecond', () => {
    const durations = [
      0, -0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 0.12, 0.123, 0.1234, 1, 1.2, 1.23, 1.234, 1.2345678, 1.0005, 1.9999,
      2.05, 9.999, 10.01, 10.001, 99.9995, 100.1, 1000.5, 123456.789, 1073741.8235, 1073741.824, 1073741.8245,
      5_000_000.25, -0.0004, -0.0006, -1.5, 1e21,
    ];
    for (let step = 0; step < 2000; step += 1) durations.push(step / 997, step * 0.001, step * 1.001 + 0.0001);
    for (const duration of durations) {
      assert.equal(millisecondsJson(duration), JSON.stringify(Math.round(duration * 1000) / 1000), `for ${duration}`);
    }
  });

  test('writes what JSON.stringify writes for numbers that are not durations', () => {
    for (const value of [Number.NaN, Infinity, -Infinity]) assert.equal(millisecondsJson(value), JSON.stringify(value));
  });
});

describe('createTimeText', () => {
  test("is the clock's time as text, made again only when the time moves", () => {
    const times = [1_764_000_000_000, 1_764_000_000_000, 1_764_000_000_001, 1_764_000_000_000.5, 1_764_000_000_002];
    let calls = 0;
    const timeText = createTimeText(() => times[calls++]!);
    assert.deepEqual(times.map(() => timeText()), times.map(String));
  });
});
