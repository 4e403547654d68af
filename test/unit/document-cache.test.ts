// Caching client metadata documents (draft "Metadata Caching", RFC 9111), on a moved clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FixedClock } from '../../src/platform/clock.ts';
import { type LoadedDocument, createDocumentCache, freshnessMs } from '../../src/platform/document-cache.ts';
import { DocumentFetchError, type CachingHeaders } from '../../src/platform/safe-fetch.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const bounds = { floorMs: 5 * MINUTE, ceilingMs: 24 * HOUR };

/** A loader that counts its calls and answers with `caching`, or fails when told to. */
function source(caching: CachingHeaders = {}) {
  const state = { calls: 0, fail: false };
  const load = async (): Promise<LoadedDocument<string>> => {
    state.calls++;
    if (state.fail) throw new DocumentFetchError('https://app.example/client.json answered HTTP 500; only 200 is accepted');
    return { value: `version ${state.calls}`, caching };
  };
  return { state, load };
}

describe('freshnessMs: how long a document is kept', () => {
  const now = Date.UTC(2026, 0, 1);

  it('honours max-age between the floor and the ceiling', () => {
    assert.equal(freshnessMs({ cacheControl: 'public, max-age=3600' }, now, bounds), HOUR);
    assert.equal(freshnessMs({ cacheControl: 'max-age=10' }, now, bounds), 5 * MINUTE);
    assert.equal(freshnessMs({ cacheControl: 'max-age=31536000' }, now, bounds), 24 * HOUR);
  });

  it('keeps no-store, no-cache, max-age=0 and silent responses for the floor only', () => {
    for (const cacheControl of ['no-store', 'no-cache', 'max-age=0', 'no-store, max-age=3600', 'max-age=banana', undefined]) {
      assert.equal(freshnessMs(cacheControl === undefined ? {} : { cacheControl }, now, bounds), 5 * MINUTE, String(cacheControl));
    }
  });

  it('reads Expires against the Date header, or the clock without one', () => {
    const date = new Date(now).toUTCString();
    const inTwoHours = new Date(now + 2 * HOUR).toUTCString();
    assert.equal(freshnessMs({ expires: inTwoHours, date }, now + 10 * MINUTE, bounds), 2 * HOUR);
    assert.equal(freshnessMs({ expires: inTwoHours }, now, bounds), 2 * HOUR);
    assert.equal(freshnessMs({ expires: '0' }, now, bounds), 5 * MINUTE);
  });

  it('prefers max-age to Expires and subtracts Age', () => {
    const expires = new Date(now + 10 * HOUR).toUTCString();
    assert.equal(freshnessMs({ cacheControl: 'max-age=7200', expires }, now, bounds), 2 * HOUR);
    assert.equal(freshnessMs({ cacheControl: 'max-age=7200', age: '3600' }, now, bounds), HOUR);
  });
});

describe('createDocumentCache', () => {
  it('answers from memory until max-age runs out, then fetches again', async () => {
    const clock = new FixedClock();
    const cache = createDocumentCache<string>({ clock });
    const { state, load } = source({ cacheControl: 'max-age=600' });
    assert.equal(await cache.get('https://app.example/client.json', load), 'version 1');
    clock.advance(599_000);
    assert.equal(await cache.get('https://app.example/client.json', load), 'version 1');
    clock.advance(2000);
    assert.equal(await cache.get('https://app.example/client.json', load), 'version 2');
    assert.equal(state.calls, 2);
  });

  it('keeps a no-store document for the floor, so a client cannot make Folio fetch on every request', async () => {
    const clock = new FixedClock();
    const cache = createDocumentCache<string>({ clock, floorMs: 5 * MINUTE });
    const { state, load } = source({ cacheControl: 'no-store' });
    await cache.get('https://app.example/client.json', load);
    clock.advance(5 * MINUTE - 1);
    await cache.get('https://app.example/client.json', load);
    assert.equal(state.calls, 1);
    clock.advance(1);
    await cache.get('https://app.example/client.json', load);
    assert.equal(state.calls, 2);
  });

  it('remembers a failure for failureMs, then tries again', async () => {
    const clock = new FixedClock();
    const cache = createDocumentCache<string>({ clock, failureMs: MINUTE });
    const { state, load } = source();
    state.fail = true;
    await assert.rejects(cache.get('https://app.example/client.json', load), DocumentFetchError);
    clock.advance(MINUTE - 1);
    await assert.rejects(cache.get('https://app.example/client.json', load), /answered HTTP 500/);
    assert.equal(state.calls, 1);
    state.fail = false;
    clock.advance(1);
    assert.equal(await cache.get('https://app.example/client.json', load), 'version 2');
  });

  it('fetches again after every failure when failureMs is 0', async () => {
    const cache = createDocumentCache<string>({ clock: new FixedClock(), failureMs: 0 });
    const { state, load } = source();
    state.fail = true;
    await assert.rejects(cache.get('https://app.example/client.json', load));
    await assert.rejects(cache.get('https://app.example/client.json', load));
    assert.equal(state.calls, 2);
    assert.equal(cache.size, 0);
  });

  it('shares one fetch between concurrent requests for the same URL', async () => {
    const cache = createDocumentCache<string>({ clock: new FixedClock() });
    const { state, load } = source();
    const values = await Promise.all([1, 2, 3].map(() => cache.get('https://app.example/client.json', load)));
    assert.deepEqual(values, ['version 1', 'version 1', 'version 1']);
    assert.equal(state.calls, 1);
  });

  it('holds at most maxEntries documents, dropping the least recently used', async () => {
    const cache = createDocumentCache<string>({ clock: new FixedClock(), maxEntries: 2 });
    const loaders = { a: source(), b: source(), c: source() };
    await cache.get('https://a.example/c', loaders.a.load);
    await cache.get('https://b.example/c', loaders.b.load);
    await cache.get('https://a.example/c', loaders.a.load);
    await cache.get('https://c.example/c', loaders.c.load);
    assert.equal(cache.size, 2);
    await cache.get('https://a.example/c', loaders.a.load);
    assert.equal(loaders.a.state.calls, 1);
    await cache.get('https://b.example/c', loaders.b.load);
    assert.equal(loaders.b.state.calls, 2);
  });
});
