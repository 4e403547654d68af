import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { jsonValue } from '../../src/platform/log-json.ts';

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
