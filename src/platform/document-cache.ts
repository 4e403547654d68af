// Remembers fetched client metadata documents for as long as their HTTP caching
// headers say (RFC 9111), within bounds of Folio's own, which the draft's
// "Metadata Caching" allows. The floor keeps a client from making Folio fetch on
// every authorization request; the ceiling makes a changed document count in a day.
import type { Clock } from './clock.ts';
import type { CachingHeaders } from './safe-fetch.ts';

export interface DocumentCacheOptions {
  clock: Clock;
  floorMs?: number;
  ceilingMs?: number;
  /** How long a failure is answered without fetching again; 0 to fetch every time. */
  failureMs?: number;
  maxEntries?: number;
}

export interface LoadedDocument<T> {
  value: T;
  caching: CachingHeaders;
}

export interface DocumentCache<T> {
  /**
   * The value for `url`: remembered, or from `load`, whose value (after whatever
   * validation it does) or error is then remembered. Concurrent calls for one URL
   * share one load.
   */
  get(url: string, load: () => Promise<LoadedDocument<T>>): Promise<T>;
  readonly size: number;
}

export const documentCacheDefaults = {
  floorMs: 5 * 60_000,
  ceilingMs: 24 * 60 * 60_000,
  failureMs: 60_000,
  maxEntries: 1000,
} as const;

type Entry<T> = { expiresAt: number } & ({ ok: true; value: T } | { ok: false; error: unknown });

export function createDocumentCache<T>(options: DocumentCacheOptions): DocumentCache<T> {
  const { clock } = options;
  const floorMs = options.floorMs ?? documentCacheDefaults.floorMs;
  const ceilingMs = options.ceilingMs ?? documentCacheDefaults.ceilingMs;
  const failureMs = options.failureMs ?? documentCacheDefaults.failureMs;
  const maxEntries = options.maxEntries ?? documentCacheDefaults.maxEntries;
  const entries = new Map<string, Entry<T>>();
  const loading = new Map<string, Promise<T>>();

  function remember(url: string, entry: Entry<T>): void {
    entries.delete(url);
    entries.set(url, entry);
    // A Map iterates in insertion order and every hit re-inserts, so the first key is the least recently used.
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(oldest);
    }
  }

  async function load(url: string, loader: () => Promise<LoadedDocument<T>>): Promise<T> {
    try {
      const { value, caching } = await loader();
      const now = clock.now();
      remember(url, { ok: true, value, expiresAt: now + freshnessMs(caching, now, { floorMs, ceilingMs }) });
      return value;
    } catch (error) {
      // The draft's "Metadata Caching" forbids caching error responses and invalid
      // documents, so an error never stands in for a client's metadata. Refusing to
      // fetch again for a short while is a rate limit, which it leaves to Folio:
      // a URL that fails cannot make Folio fetch it on every request.
      if (failureMs > 0) remember(url, { ok: false, error, expiresAt: clock.now() + failureMs });
      throw error;
    }
  }

  return {
    get(url, loader) {
      const entry = entries.get(url);
      if (entry !== undefined && entry.expiresAt > clock.now()) {
        remember(url, entry);
        return entry.ok ? Promise.resolve(entry.value) : Promise.reject(entry.error);
      }
      entries.delete(url);
      const pending = loading.get(url);
      if (pending !== undefined) return pending;
      const started = load(url, loader).finally(() => loading.delete(url));
      loading.set(url, started);
      return started;
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * How long a response stays fresh (RFC 9111 §4.2.1), clamped to [floorMs, ceilingMs].
 * no-store and no-cache get the floor: the client is asking for changes to count
 * quickly, and the floor is as quickly as Folio goes. So does a response that says
 * nothing, rather than a heuristic lifetime.
 */
export function freshnessMs(caching: CachingHeaders, now: number, bounds: { floorMs: number; ceilingMs: number }): number {
  return Math.min(bounds.ceilingMs, Math.max(bounds.floorMs, statedLifetimeMs(caching, now) - ageMs(caching)));
}

function statedLifetimeMs(caching: CachingHeaders, now: number): number {
  const directives = new Map((caching.cacheControl ?? '').split(',').map((directive) => {
    const [name = '', value = ''] = directive.split('=', 2).map((part) => part.trim());
    return [name.toLowerCase(), value.replace(/^"(.*)"$/, '$1')] as const;
  }));
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  // RFC 9111 §5.2.2.1; s-maxage is for shared caches, and Folio fetches for itself.
  const maxAge = directives.get('max-age');
  if (maxAge !== undefined) return /^\d+$/.test(maxAge) ? Number(maxAge) * 1000 : 0;
  if (caching.expires !== undefined) {
    // RFC 9111 §5.3: an Expires that does not parse means already expired.
    const expires = Date.parse(caching.expires);
    const date = caching.date === undefined ? NaN : Date.parse(caching.date);
    return Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? now : date);
  }
  return 0;
}

function ageMs(caching: CachingHeaders): number {
  return caching.age !== undefined && /^\d+$/.test(caching.age.trim()) ? Number(caching.age.trim()) * 1000 : 0;
}
