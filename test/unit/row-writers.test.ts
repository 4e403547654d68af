import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonMembers, valuesInColumnOrder } from '../../src/storage/kysely/row-writers.ts';

interface Row { b: string; a: number | null; c: string }

const ROW: Row = { a: 7, b: 'say "hi"\u2028', c: 'plain' };

describe('row writers', () => {
  test("give a row's values in the order of the columns, not of the row's members", () => {
    assert.deepEqual(valuesInColumnOrder<Row>(['c', 'a', 'b'])(ROW), ['plain', 7, 'say "hi"\u2028']);
    assert.deepEqual(valuesInColumnOrder<Row>(['a'])({ ...ROW, a: null }), [null]);
  });

  test("write a row's columns as JSON members, in order, as JSON.stringify writes them", () => {
    const members = jsonMembers<Row>(['c', 'a', 'b']);
    assert.equal(`{${members(ROW)}}`, JSON.stringify({ c: ROW.c, a: ROW.a, b: ROW.b }));
    assert.equal(`{${members({ ...ROW, a: null })}}`, JSON.stringify({ c: ROW.c, a: null, b: ROW.b }));
  });

  test('refuse anything but a column name, since the names are written into code', () => {
    for (const name of ['a; globalThis.hacked = 1', 'a"', 'A', '1a', '']) {
      assert.throws(() => valuesInColumnOrder([name as keyof Row]), /not a column name/);
      assert.throws(() => jsonMembers([name as keyof Row]), /not a column name/);
    }
    assert.throws(() => jsonMembers<Row>([]), /no columns/);
    assert.equal((globalThis as { hacked?: number }).hacked, undefined);
  });
});
