// PostgreSQL: refresh-token rotations and code exchanges in batches across grants.
// Each request of the kind that arrives while one of its statements is in flight
// goes in the next (statement-batches.ts): one round trip and one commit for many.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { insertsWhere, issuedRows } from './issue-sql-postgres.ts';
import { LAST_USE_RESOLUTION_MS } from './token-writes.ts';
import { ONE_QUEUE, StatementBatches } from './statement-batches.ts';
import { preparedStatement } from './prepared.ts';

/** Tokens issued in exchange for the refresh token or code whose hash is `spent`. */
export interface Exchange {
  spent: string;
  tokens: IssuedTokens;
  now: number;
}

/** Where a kind of credential is kept, and which of its rows may still be spent. */
interface Credential {
  table: 'refresh_tokens' | 'authorization_codes';
  key: 'token_hash' | 'code_hash';
  spentAt: 'rotated_at' | 'consumed_at';
  unspent: RawBuilder<unknown>;
}

const REFRESH_TOKENS: Credential = {
  table: 'refresh_tokens', key: 'token_hash', spentAt: 'rotated_at', unspent: sql`rotated_at is null and revoked_at is null`,
};
const AUTHORIZATION_CODES: Credential = {
  table: 'authorization_codes', key: 'code_hash', spentAt: 'consumed_at', unspent: sql`consumed_at is null`,
};

/** The rows of the exchanges whose credential the CTE `spent` spent. */
const SPENT_HERE = sql`(e->>'spends') in (select spent from spent)`;

interface SpentRow {
  spent: string;
  grant_id: number;
  last_used_at: number | null;
}

/**
 * RFC 9700 §4.14.2 and RFC 6749 §4.1.2: of the requests presenting one refresh
 * token or code, exactly one spends it. A loser waits for the winner's lock on the
 * row and, under READ COMMITTED, re-checks the WHERE clause on the spent row: it
 * matches nothing, and the loser's rows, which read `spent`, are not inserted.
 * Two in one batch would both see the statement's own UPDATE, so they never share
 * one (`mayJoin`).
 *
 * Locks are taken in one order: the batch's live grants, shared, in id order (the
 * ARRAY() reads them all before any credential row), then the credentials, in hash
 * order. A revocation takes its one grant first, exclusively, then that grant's
 * tokens; an application's deletion takes its grants in id order first
 * (applications.ts). So no two of these can each hold a row the other waits for.
 * A revocation that commits first leaves its grant out of `claimed`, and its
 * credentials unspent.
 */
function exchangeStatement(db: Kysely<Database>, { table, key, spentAt, unspent }: Credential) {
  return preparedStatement((grantIds: number[], spent: string[], now: number, access: string, refresh: string, event: string) => ({
    compile: () => sql<SpentRow>`
      with claimed as (
        select id, last_used_at from grants
        where id = any(${grantIds}::bigint[]) and revoked_at is null
        order by id
        for share
      ), locked as (
        select ${sql.ref(key)} from ${sql.table(table)}
        where ${sql.ref(key)} = any(${spent}::text[]) and ${unspent}
          and grant_id = any(array(select id from claimed))
        order by ${sql.ref(key)}
        for update
      ), spent as (
        update ${sql.table(table)} set ${sql.ref(spentAt)} = ${now}
        where ${sql.ref(key)} in (select ${sql.ref(key)} from locked)
        returning ${sql.ref(key)} as spent, grant_id
      ), ${insertsWhere(SPENT_HERE, access, refresh, event)}
      select spent.spent, spent.grant_id, claimed.last_used_at
      from spent join claimed on claimed.id = spent.grant_id`.compile(db),
  }));
}

/**
 * A grant's last use, written apart from the exchange: taking each grant's row
 * exclusively inside it would break the lock order above. The rows are taken in
 * id order, as the exchanges take theirs.
 */
function lastUseStatement(db: Kysely<Database>) {
  return preparedStatement((grantIds: number[], usedAt: number) => ({
    compile: () => sql`
      update grants set last_used_at = ${usedAt}
      where id in (
        select id from grants
        where id = any(${grantIds}::bigint[]) and revoked_at is null
          and (last_used_at is null or last_used_at <= ${usedAt}::bigint - ${sql.lit(LAST_USE_RESOLUTION_MS)})
        order by id
        for update
      )`.compile(db),
  }));
}

/** Rotations and code exchanges in batches; every exchange of one kind goes under one key, so a batch spans grants. */
export function exchangesInBatches(db: Kysely<Database>) {
  const writeLastUse = lastUseStatement(db);
  const batches = (credential: Credential) => {
    const statement = exchangeStatement(db, credential);
    const batchesOf = new StatementBatches<Exchange, boolean>(async (batch) => {
      const spent = batch.map((exchange) => exchange.spent);
      const now = batch.reduce((latest, exchange) => Math.max(latest, exchange.now), 0);
      const grantIds = [...new Set(batch.map((exchange) => exchange.tokens.access.grantId))];
      const { rows } = await statement(db, grantIds, spent, now, ...issuedRows(batch.map((exchange) => exchange.tokens), spent));
      const stale = rows.filter((row) => row.last_used_at === null || row.last_used_at <= now - LAST_USE_RESOLUTION_MS);
      // The exchanges are committed: a last use that fails to be written here is
      // written by the grant's next issue, and must not fail these.
      if (stale.length > 0) await writeLastUse(db, [...new Set(stale.map((row) => row.grant_id))], now).catch(() => undefined);
      const spentHere = new Set(rows.map((row) => row.spent));
      return batch.map((exchange) => spentHere.has(exchange.spent));
    }, (exchange, batch) => !batch.some((other) => other.spent === exchange.spent));
    return (exchange: Exchange) => batchesOf.submit(ONE_QUEUE, exchange);
  };
  return { rotate: batches(REFRESH_TOKENS), redeem: batches(AUTHORIZATION_CODES) };
}
