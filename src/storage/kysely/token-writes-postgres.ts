// PostgreSQL: a batch of token writes as one statement, one round trip and one commit,
// of the same steps as SQLite's (token-writes.ts): the live grants locked, the
// credentials spent, and the rows of the writes that won inserted. The rows travel as
// JSON (json_populate_record), so the statement's text is the same whatever the batch.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { NEW_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS, accessTokenRow, refreshTokenRow } from './token-rows.ts';
import { type BatchWritten, type TokenWrite, grantsOf, liveGrants, redemption, rotation, spentBy } from './token-rules.ts';

const LIVE = sql<number>`(select id from live)`;

/** The rows of `table` for the writes numbered `n`, inserted for those that won. */
function insertWon(table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly string[], rows: object[]): RawBuilder<unknown> {
  return sql`${sql.id(`wrote_${table}`)} as (
    insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(columns.map((column) => sql.ref(`r.${column}`)))}
    from json_array_elements(${JSON.stringify(rows)}::json) as e, json_populate_record(null::${sql.table(table)}, e) as r
    where (e->>'n')::int in (select n from won))`;
}

export async function writeInOneStatement(db: Kysely<Database>, writes: readonly TokenWrite[]): Promise<BatchWritten> {
  const [rotating, redeeming] = [spentBy(writes, 'refreshToken'), spentBy(writes, 'authorizationCode')];
  const claims = writes.map(({ tokens, spends }, n) => ({ n, grant_id: tokens.access.grantId, spends: spends?.hash ?? null }));
  const rowsOf = <Row>(pick: (write: TokenWrite) => Row | undefined) =>
    writes.flatMap((write, n) => { const row = pick(write); return row === undefined ? [] : [{ ...row, n }]; });
  const { rows } = await sql<{ n: number | null; id: number | null; last_used_at: number | null }>`
    with live as ${liveGrants(db, 'postgres', grantsOf(writes))},
    rotated as (${rotating.size === 0 ? sql`select null::text as token_hash where false` : rotation(db, rotating, LIVE)}),
    redeemed as (${redeeming.size === 0 ? sql`select null::text as code_hash where false` : redemption(db, redeeming, LIVE)}),
    won as (
      select c.n from json_to_recordset(${JSON.stringify(claims)}::json) as c(n int, grant_id bigint, spends text)
      where c.grant_id in (select id from live)
        and (c.spends is null or c.spends in (select token_hash from rotated) or c.spends in (select code_hash from redeemed))),
    ${insertWon('access_tokens', ACCESS_TOKEN_COLUMNS, rowsOf(({ tokens: { access, refresh } }) => accessTokenRow(access, refresh?.tokenHash ?? null)))},
    ${insertWon('refresh_tokens', REFRESH_TOKEN_COLUMNS, rowsOf(({ tokens }) => tokens.refresh && refreshTokenRow(tokens.refresh)))},
    ${insertWon('audit_events', NEW_EVENT_COLUMNS, rowsOf(({ tokens }) => tokens.event && auditEventRow(tokens.event)))}
    select n, null::bigint as id, null::bigint as last_used_at from won
    union all select null, id, last_used_at from live`.execute(db);
  const won = new Set(rows.flatMap((row) => (row.n === null ? [] : [row.n])));
  const lastUses = new Map<number, number | null>(rows.flatMap((row) => (row.id === null ? [] : [[row.id, row.last_used_at] as const])));
  return { written: writes.map((_, n) => won.has(n)), lastUses };
}
