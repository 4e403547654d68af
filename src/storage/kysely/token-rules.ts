// The rules of writing tokens, each stated once and used by both databases'
// batches (token-writes.ts): tokens only on a live grant, and a credential spent
// once, by a conditional UPDATE that exactly one of the requests presenting it
// wins (RFC 6749 §4.1.2, RFC 9700 §4.14.2).
import type { Expression, ExpressionBuilder, Kysely } from 'kysely';
import type { Database, StorageKind } from '../schema.ts';
import type { IssuedTokens } from '../../domain/records.ts';

export interface TokenWrite {
  tokens: IssuedTokens;
  /** The credential this write spends: a refresh token (a rotation) or an authorization code (a redemption). */
  spends?: { credential: 'refreshToken' | 'authorizationCode'; hash: string };
  now: number;
}

/** Of each write of a batch, whether it was written; of each live grant, its last use before. */
export interface BatchWritten {
  written: boolean[];
  lastUses: Map<number, number | null>;
}

/** Grant ids, as a list or as a subquery that yields them. */
type GrantIds = number[] | Expression<number>;

/**
 * The live grants among `grantIds`, with their last use. On PostgreSQL they are locked
 * shared, in id order, until the commit: a revocation takes its grant exclusively
 * first, so it waits for this write and revokes what it wrote, or this write finds the
 * grant revoked. SQLite runs one writer at a time.
 */
export function liveGrants(db: Kysely<Database>, kind: StorageKind, grantIds: number[]) {
  return db.selectFrom('grants').select(['id', 'last_used_at'])
    .where('id', 'in', grantIds).where('revoked_at', 'is', null)
    .$if(kind === 'postgres', (query) => query.orderBy('id').forShare());
}

/** Each spent credential's hash, with the time of the write that spends it. */
export type Spending = Map<string, number>;

/** `case <key> when <hash> then <time> ... end`: each credential marked spent at its own write's time. */
function spentAt(key: 'token_hash' | 'code_hash', spending: Spending) {
  return (eb: ExpressionBuilder<Database, 'refresh_tokens' | 'authorization_codes'>) => {
    // Cast, so that PostgreSQL types the parameters as the column's bigint, not text.
    const time = (value: number) => eb.cast<number>(eb.val(value), 'bigint');
    const [first, ...rest] = [...spending];
    let times = eb.case(eb.ref(key as 'token_hash')).when(eb.val(first![0])).then(time(first![1]));
    for (const [hash, at] of rest) times = times.when(eb.val(hash)).then(time(at));
    return times.end();
  };
}

/** Marks the refresh tokens being spent rotated, unless they already were or were revoked; returns those it marked. */
export function rotation(db: Kysely<Database>, spending: Spending, live: GrantIds) {
  return db.updateTable('refresh_tokens').set((eb) => ({ rotated_at: spentAt('token_hash', spending)(eb) }))
    .where('token_hash', 'in', [...spending.keys()]).where('rotated_at', 'is', null).where('revoked_at', 'is', null)
    .where('grant_id', 'in', live)
    .returning('token_hash');
}

/** Marks the codes being spent used, unless they already were; returns those it marked. */
export function redemption(db: Kysely<Database>, spending: Spending, live: GrantIds) {
  return db.updateTable('authorization_codes').set((eb) => ({ consumed_at: spentAt('code_hash', spending)(eb) }))
    .where('code_hash', 'in', [...spending.keys()]).where('consumed_at', 'is', null)
    .where('grant_id', 'in', live)
    .returning('code_hash');
}

export const spentBy = (writes: readonly TokenWrite[], credential: 'refreshToken' | 'authorizationCode'): Spending =>
  new Map(writes.flatMap((write) => (write.spends?.credential === credential ? [[write.spends.hash, write.now]] : [])));

export const grantsOf = (writes: readonly TokenWrite[]) => [...new Set(writes.map((write) => write.tokens.access.grantId))];
