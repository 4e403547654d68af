// The reads kept in memory, by kind, and how a store that changes one says so: each
// store method that revokes, deletes or changes what a kind holds names the kind
// (kysely/changing.ts), and nothing else invalidates.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** access tokens by hash, portfolio lists by owner, applications by client id. */
export const CACHED_KINDS = ['accessTokens', 'portfolios', 'applications'] as const;
export type CachedKind = (typeof CACHED_KINDS)[number];

/** The PostgreSQL NOTIFY channel on which instances announce what they changed. */
export const CHANGES_CHANNEL = 'folio_changes';

export interface Changes {
  /**
   * A number that moves whenever what `kind` caches may have changed, in this process
   * or another. While other processes cannot be heard (`trusted()` false) it moves on
   * every call, so nothing read then is kept.
   */
  version(kind: CachedKind): number;
  /** Whether other processes' changes are heard now: always on SQLite; on PostgreSQL while the listener is proven. */
  trusted(): boolean;
  /** Called inside the transaction that changes `kinds`: on PostgreSQL, a notice the others hear if it commits. */
  announce(trx: Kysely<Database>, kinds: readonly CachedKind[]): Promise<void>;
  /** Called once that transaction has ended, committed or not: this process forgets `kinds`. */
  forget(kinds: readonly CachedKind[]): void;
  stop(): Promise<void>;
}

/** One counter per kind, shared by both databases' Changes. */
export class KindVersions {
  private readonly versions: Record<CachedKind, number> = { accessTokens: 0, portfolios: 0, applications: 0 };

  get(kind: CachedKind): number {
    return this.versions[kind];
  }

  move(kinds: readonly CachedKind[] = CACHED_KINDS): void {
    for (const kind of kinds) this.versions[kind]++;
  }

  /** The kinds a notice's payload names; a payload naming none of ours (an older release's) means all of them. */
  static fromPayload(payload: string): readonly CachedKind[] {
    const named = CACHED_KINDS.filter((kind) => payload.split(' ').includes(kind));
    return named.length === 0 ? CACHED_KINDS : named;
  }
}
