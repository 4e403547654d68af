// The reads answered from memory until a change of their kind: the bearer API's two
// (the access token by hash, its user's portfolios), which it answers without touching
// the database, and the client look-up of every token, introspection and revocation.
import type { AccessToken, Application, Portfolio } from '../../domain/records.ts';
import type { ApplicationStore, PortfolioStore, TokenStore } from '../stores.ts';
import type { CachedKind, Changes } from './changes.ts';
import { VersionedCache } from '../../platform/versioned-cache.ts';

/** Entries held of each kind: a few MB at most. */
export const CACHE_CAPACITY: Record<CachedKind, number> = { accessTokens: 4096, portfolios: 512, applications: 1024 };

/** The store with some methods of its own in front; every other method is the store's. */
function overriding<Store extends object>(store: Store, methods: Partial<Store>): Store {
  return Object.assign(Object.create(store) as Store, methods);
}

/** Frozen, so no caller can change what the next request is answered with. */
function frozen<T extends object>(value: T): T {
  for (const member of Object.values(value)) if (typeof member === 'object' && member !== null) Object.freeze(member);
  return Object.freeze(value);
}

function cacheOf<Key, Value>(changes: Changes, kind: CachedKind) {
  return new VersionedCache<Key, Value>(CACHE_CAPACITY[kind], () => changes.version(kind));
}

export function cachingTokens(tokens: TokenStore, changes: Changes): TokenStore {
  const cache = cacheOf<string, AccessToken>(changes, 'accessTokens');
  const read = (hash: string) => tokens.findAccessToken(hash).then((token) => token && frozen(token));
  return overriding(tokens, {
    findAccessToken: (hash) => cache.get(hash, read),
    recallAccessToken: (hash) => cache.peek(hash),
  });
}

export function cachingPortfolios(portfolios: PortfolioStore, changes: Changes): PortfolioStore {
  const cache = cacheOf<number, Portfolio[]>(changes, 'portfolios');
  // The same frozen list is handed out until a change, so the route can keep its JSON.
  const read = async (ownerId: number) => Object.freeze((await portfolios.listPortfoliosOwnedBy(ownerId)).map(frozen)) as Portfolio[];
  return overriding(portfolios, { listPortfoliosOwnedBy: (ownerId) => cache.get(ownerId, read) as Promise<Portfolio[]> });
}

export function cachingApplications(applications: ApplicationStore, changes: Changes): ApplicationStore {
  const cache = cacheOf<string, Application>(changes, 'applications');
  const read = (clientId: string) => applications.findApplicationByClientId(clientId).then((application) => application && frozen(application));
  return overriding(applications, { findApplicationByClientId: (clientId) => cache.get(clientId, read) });
}
