// PostgreSQL: a batch of token writes as one statement, one round trip and one commit,
// of the same steps as SQLite's (token-writes.ts): the live grants locked, the
// credentials spent, and the rows of the writes that won inserted. The rows travel as
// JSON (json_populate_record), so the statement's text is the same whatever the batch:
// one form for batches that only issue, one for those that also spend a credential.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { NEW_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { compiledOnce } from './compiled-once.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS, accessTokenRow, refreshTokenRow } from './token-rows.ts';
import { type BatchWritten, type TokenWrite, batchParameters, claimsTable, liveGrants, redemption, rotation } from './token-rules.ts';

/** The rows `rows` of `table` (JSON, an element a write: its row or null) inserted for the writes that won. */
function insertWon(table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly string[], rows: unknown): RawBuilder<unknown> {
  return sql`${sql.id(`wrote_${table}`)} as (
    insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(columns.map((column) => sql.ref(`r.${column}`)))}
    from json_array_elements(${rows}::json) with ordinality as e(value, position), json_populate_record(null::${sql.table(table)}, e.value) as r
    where json_typeof(e.value) = 'object' and e.position - 1 in (select n from won))`;
}

/** The JSON of the row `pick` makes of each write, or null. */
const rowsOf = <Row extends object>(writes: readonly TokenWrite[], pick: (write: TokenWrite) => Row | undefined): string =>
  JSON.stringify(writes.map((write) => pick(write) ?? null));

/**
 * The statement of a batch, `spending` or not: a batch that only issues (client_credentials')
 * leaves out the UPDATEs, which would read its claims twice more for nothing.
 */
function batchStatement(db: Kysely<Database>, spending: boolean) {
  return compiledOnce(['grants', 'claims', 'access', 'refresh', 'events'], ({ grants, claims, access, refresh, events }) => sql<{
    n: number | null; id: number | null; last_used_at: number | null;
  }>`
    with live as ${liveGrants(db, 'postgres', grants)},
    rotated as (${spending ? rotation(db, 'postgres', claims, sql`(select id from live)`) : sql`select null::text as token_hash where false`}),
    redeemed as (${spending ? redemption(db, 'postgres', claims, sql`(select id from live)`) : sql`select null::text as code_hash where false`}),
    won as (
      select c.n from ${claimsTable('postgres', claims)}
      where c.grant_id in (select id from live)
        and (c.spends is null or c.spends in (select token_hash from rotated) or c.spends in (select code_hash from redeemed))),
    ${insertWon('access_tokens', ACCESS_TOKEN_COLUMNS, access)},
    ${insertWon('refresh_tokens', REFRESH_TOKEN_COLUMNS, refresh)},
    ${insertWon('audit_events', NEW_EVENT_COLUMNS, events)}
    select n, null::bigint as id, null::bigint as last_used_at from won
    union all select null, id, last_used_at from live`.compile(db));
}

export function writingInOneStatement(db: Kysely<Database>): (writes: readonly TokenWrite[]) => Promise<BatchWritten> {
  const [issuing, exchanging] = [batchStatement(db, false), batchStatement(db, true)];
  return async (writes) => {
    const statement = writes.some((write) => write.spends !== undefined) ? exchanging : issuing;
    const { rows } = await statement(db, {
      ...batchParameters('postgres', writes),
      access: rowsOf(writes, ({ tokens: { access, refresh } }) => accessTokenRow(access, refresh?.tokenHash ?? null)),
      refresh: rowsOf(writes, ({ tokens }) => tokens.refresh && refreshTokenRow(tokens.refresh)),
      events: rowsOf(writes, ({ tokens }) => tokens.event && auditEventRow(tokens.event)),
    });
    const won = new Set(rows.flatMap((row) => (row.n === null ? [] : [row.n])));
    const lastUses = new Map<number, number | null>(rows.flatMap((row) => (row.id === null ? [] : [[row.id, row.last_used_at] as const])));
    return { written: writes.map((_, n) => won.has(n)), lastUses };
  };
}
