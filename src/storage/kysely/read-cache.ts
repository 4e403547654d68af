// Reads answered from memory while nothing they come from has changed: the
// bearer API's two, the access token by its hash and its user's portfolios
// (through Kysely and better-sqlite3 they were more than half the server's CPU
// on `GET /api/v2/portfolios`), and the application by its client id, which
// every token, introspection and revocation request looks up (on PostgreSQL a
// round trip of the token endpoint's two or three; docs/performance.md). The
// counters that say when to forget them (database-changes.ts) see every write
// on SQLite at once, and on PostgreSQL this process's writes at once and other
// instances' commits when their notices arrive.
import type { AccessToken, Application, Portfolio } from '../records.ts';
import type { ApplicationStore, PortfolioStore, TokenStore } from '../stores.ts';

/** Entries held; the oldest goes first when full. A few MB at most. */
export const CACHED_ACCESS_TOKENS = 4096;
export const CACHED_PORTFOLIO_LISTS = 512;
export const CACHED_APPLICATIONS = 1024;

/**
 * Values read at the database's current version, forgotten all at once when the
 * version moves: no write, however it reached the database, is ever outrun by
 * a cached answer. A value is kept only if the version did not move while it
 * was being read, since a write during the read may have come after it.
 * Look-ups of a key that is being read, at the same version, wait for that read
 * rather than make their own: after the version moves, fifty requests with one
 * token cost one read, not fifty (on PostgreSQL, fifty round trips at once).
 */
export class VersionedCache<Key, Value> {
  private readonly entries = new Map<Key, Value>();
  private readonly reading = new Map<Key, Promise<Value | undefined>>();
  private filledAt: number | undefined;

  constructor(private readonly capacity: number, private readonly version: () => number) {}

  get(key: Key, read: (key: Key) => Promise<Value | undefined>): Promise<Value | undefined> {
    const now = this.version();
    if (now !== this.filledAt) {
      this.entries.clear();
      // A read begun before the move may return what the write changed: nobody new waits for it.
      this.reading.clear();
      this.filledAt = now;
    }
    const cached = this.entries.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.reading.get(key);
    if (pending === undefined) {
      pending = this.readAndKeep(key, read, now);
      this.reading.set(key, pending);
    }
    return pending;
  }

  /** The value held for `key` at the current version, without reading; undefined when none is. */
  peek(key: Key): Value | undefined {
    return this.version() === this.filledAt ? this.entries.get(key) : undefined;
  }

  private async readAndKeep(key: Key, read: (key: Key) => Promise<Value | undefined>, now: number): Promise<Value | undefined> {
    try {
      const value = await read(key);
      // Nothing absent is remembered: a row written later must be found.
      if (value !== undefined && this.version() === now) {
        if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as Key);
        this.entries.set(key, value);
      }
      return value;
    } finally {
      if (this.filledAt === now) this.reading.delete(key);
    }
  }
}

/** The store with some methods of its own in front; every other method is the store's. */
function overriding<Store extends object>(store: Store, methods: Partial<Store>): Store {
  const descriptors = Object.fromEntries(Object.entries(methods).map(([name, method]) => [name, { value: method, writable: true, enumerable: true, configurable: true }]));
  return Object.create(store, descriptors) as Store;
}

/** Frozen, so that no caller can change what the next request is answered with. */
function frozenPortfolios(portfolios: Portfolio[]): readonly Portfolio[] {
  return Object.freeze(portfolios.map((portfolio) => Object.freeze(portfolio)));
}

export function cachingBearerReads(
  stores: { tokens: TokenStore; portfolios: PortfolioStore },
  version: () => number,
): { tokens: TokenStore; portfolios: PortfolioStore } {
  const { tokens, portfolios } = stores;
  const accessTokens = new VersionedCache<string, AccessToken>(CACHED_ACCESS_TOKENS, version);
  const portfolioLists = new VersionedCache<number, readonly Portfolio[]>(CACHED_PORTFOLIO_LISTS, version);
  const readToken = async (hash: string) => {
    const token = await tokens.findAccessToken(hash);
    if (token === undefined) return undefined;
    Object.freeze(token.scope);
    return Object.freeze(token);
  };
  const readPortfolios = async (ownerId: number) => frozenPortfolios(await portfolios.listPortfoliosOwnedBy(ownerId));
  return {
    tokens: overriding(tokens, {
      findAccessToken: (hash) => accessTokens.get(hash, readToken),
      recallAccessToken: (hash) => accessTokens.peek(hash),
    }),
    // Frozen, though typed as the store's mutable list: a caller that changes it fails loudly.
    portfolios: overriding(portfolios, {
      listPortfoliosOwnedBy: (ownerId) => portfolioLists.get(ownerId, readPortfolios) as Promise<Portfolio[]>,
    }),
  };
}

/**
 * Client look-ups from memory, kept across token issues: `version` moves only
 * with writes that can change an application (DatabaseChanges.applicationsVersion).
 */
export function cachingClientLookups(applications: ApplicationStore, version: () => number): ApplicationStore {
  const byClientId = new VersionedCache<string, Application>(CACHED_APPLICATIONS, version);
  const read = async (clientId: string) => {
    const application = await applications.findApplicationByClientId(clientId);
    if (application === undefined) return undefined;
    Object.freeze(application.redirectUris);
    Object.freeze(application.scopes);
    return Object.freeze(application);
  };
  return overriding(applications, { findApplicationByClientId: (clientId) => byClientId.get(clientId, read) });
}
