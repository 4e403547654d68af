// PostgreSQL's refresh-token and code look-ups go in batches (src/storage/kysely/lookup-batches.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookingUpInBatches } from '../../src/storage/kysely/lookup-batches.ts';

interface Row {
  key: string;
}

describe('look-ups in batches', () => {
  it('reads the keys asked for while a read is in flight in one statement, each once, and answers each with its own row', async () => {
    const stored = new Map([['a', { key: 'a' }], ['b', { key: 'b' }], ['c', { key: 'c' }]]);
    const reads: string[][] = [];
    const lookUp = lookingUpInBatches<Row>(async (keys) => {
      reads.push(keys);
      await new Promise((resolve) => { setImmediate(resolve); });
      return keys.flatMap((key) => (stored.has(key) ? [stored.get(key)!] : []));
    }, (row) => row.key);
    const answers = await Promise.all(['a', 'b', 'missing', 'c', 'b'].map(lookUp));
    assert.deepEqual(answers, [[{ key: 'a' }], [{ key: 'b' }], [], [{ key: 'c' }], [{ key: 'b' }]]);
    assert.deepEqual(reads, [['a'], ['b', 'missing', 'c']]);
  });
});
