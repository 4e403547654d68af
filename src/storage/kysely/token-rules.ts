// The rules of writing tokens, each stated once and used by both databases' batches
// (token-writes.ts): tokens only on a live grant, and a credential spent once, by a
// conditional UPDATE that exactly one of the requests presenting it wins (RFC 6749
// §4.1.2, RFC 9700 §4.14.2). A batch reaches them as two parameters of any length, its
// grants and its claims, so each statement is compiled once (compiled-once.ts).
import { type Expression, type Kysely, sql } from 'kysely';
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

/** What the rules read of a write: its number in the batch, its grant, and what it spends, when. */
type Claim = { n: number; grant_id: number; credential: string | null; spends: string | null; at: number };

/**
 * The parameters the rules take for a batch: the ids of its grants, and its writes'
 * claims. PostgreSQL takes the ids as an array, whose length its planner reckons
 * small, where it reckons a JSON array a hundred long and would scan grants whole.
 */
export function batchParameters(kind: StorageKind, writes: readonly TokenWrite[]): { grants: number[] | string; claims: string } {
  return {
    grants: kind === 'postgres' ? grantsOf(writes) : JSON.stringify(grantsOf(writes)),
    claims: JSON.stringify(writes.map(({ tokens, spends, now }, n): Claim => (
      { n, grant_id: tokens.access.grantId, credential: spends?.credential ?? null, spends: spends?.hash ?? null, at: now }))),
  };
}

/** The ids in batchParameters' `grants`. */
function idsIn(kind: StorageKind, ids: unknown) {
  return kind === 'postgres' ? sql<number>`(select unnest(cast(${ids} as bigint[])))` : sql<number>`(select value from json_each(${ids}))`;
}

/** The claims in the JSON array `json`, a row each. */
export function claimsTable(kind: StorageKind, json: unknown) {
  const elements = kind === 'postgres' ? sql`json_array_elements(${json}::json)` : sql`json_each(${json})`;
  return sql<Claim>`(select cast(value->>'n' as integer) as n, cast(value->>'grant_id' as bigint) as grant_id,
    value->>'credential' as credential, value->>'spends' as spends, cast(value->>'at' as bigint) as at from ${elements})`.as('c');
}

/** The ids of the live grants among `grants`. */
export function liveGrantIds(db: Kysely<Database>, kind: StorageKind, grants: unknown) {
  return db.selectFrom('grants').select('id').where('id', 'in', idsIn(kind, grants)).where('revoked_at', 'is', null);
}

/**
 * The live grants among `grants`, with their last use. On PostgreSQL they are locked
 * shared, in id order, until the commit: a revocation takes its grant exclusively
 * first, so it waits for this write and revokes what it wrote, or this write finds the
 * grant revoked. SQLite runs one writer at a time.
 */
export function liveGrants(db: Kysely<Database>, kind: StorageKind, grants: unknown) {
  return liveGrantIds(db, kind, grants).select('last_used_at').$if(kind === 'postgres', (query) => query.orderBy('id').forShare());
}

/** Marks the refresh tokens the claims spend rotated, unless they already were or were revoked; returns those it marked. */
export function rotation(db: Kysely<Database>, kind: StorageKind, claims: unknown, live: ReturnType<typeof liveGrantIds> | Expression<number>) {
  return db.updateTable('refresh_tokens').from(claimsTable(kind, claims)).set((eb) => ({ rotated_at: eb.ref('c.at') }))
    .whereRef('token_hash', '=', 'c.spends').where('c.credential', '=', sql.lit('refreshToken'))
    .where('rotated_at', 'is', null).where('revoked_at', 'is', null)
    .whereRef('refresh_tokens.grant_id', '=', 'c.grant_id').where('c.grant_id', 'in', live)
    .returning('token_hash');
}

/** Marks the codes the claims spend used, unless they already were; returns those it marked. */
export function redemption(db: Kysely<Database>, kind: StorageKind, claims: unknown, live: ReturnType<typeof liveGrantIds> | Expression<number>) {
  return db.updateTable('authorization_codes').from(claimsTable(kind, claims)).set((eb) => ({ consumed_at: eb.ref('c.at') }))
    .whereRef('code_hash', '=', 'c.spends').where('c.credential', '=', sql.lit('authorizationCode'))
    .where('consumed_at', 'is', null)
    .whereRef('authorization_codes.grant_id', '=', 'c.grant_id').where('c.grant_id', 'in', live)
    .returning('code_hash');
}

export const grantsOf = (writes: readonly TokenWrite[]) => [...new Set(writes.map((write) => write.tokens.access.grantId))];
