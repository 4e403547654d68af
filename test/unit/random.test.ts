// Cryptographic random bytes drawn from a pool (src/platform/random.ts): every
// draw is fresh, of the length asked, and the caller's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pooledCryptoRandom } from '../../src/platform/random.ts';

test('hands out bytes of the length asked, never the same twice, across many refills of the pool', () => {
  const random = pooledCryptoRandom();
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const length = [32, 16, 33, 1][i % 4]!;
    const bytes = random.bytes(length);
    assert.equal(bytes.length, length);
    if (length >= 16) {
      const hex = bytes.toString('hex');
      assert.equal(seen.has(hex), false, `a draw of ${length} bytes repeated`);
      seen.add(hex);
    }
  }
});

test('gives each caller a buffer of its own, and serves lengths beyond the pool', () => {
  const random = pooledCryptoRandom();
  const first = random.bytes(32);
  const copy = Buffer.from(first);
  first.fill(0);
  const second = random.bytes(32);
  assert.notDeepEqual(second, Buffer.alloc(32));
  assert.notDeepEqual(copy, second);
  const large = random.bytes(10_000);
  assert.equal(large.length, 10_000);
  // 10,000 zero bytes from a CSPRNG would be a 2^-80000 event.
  assert.ok(large.some((byte) => byte !== 0));
});

test('bytes are spread over all values, as a sanity check of the draw', () => {
  const random = pooledCryptoRandom();
  const counts = new Array<number>(256).fill(0);
  for (let i = 0; i < 2000; i++) for (const byte of random.bytes(32)) counts[byte]!++;
  // 64,000 bytes: 250 of each value on average; every value turns up.
  assert.ok(counts.every((count) => count > 150 && count < 350), `counts from ${Math.min(...counts)} to ${Math.max(...counts)}`);
});
