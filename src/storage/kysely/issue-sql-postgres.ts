// PostgreSQL: what the token issue statements share (token-issue-postgres.ts,
// token-exchanges-postgres.ts): a batch's rows as parameters and the inserts that
// take them.
import { type RawBuilder, sql } from 'kysely';
import { jsonValue } from '../../platform/log-json.ts';
import type { AccessTokenRow, AuditEventRow, RefreshTokenRow } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { AUDIT_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { jsonMembers } from './row-writers.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS, accessTokenRow, refreshTokenRow } from './tokens.ts';

// Written member by member, not by JSON.stringify, which took about 7% of a
// PostgreSQL refresh's instructions (row-writers.ts, docs/performance.md).
const accessMembers = jsonMembers<AccessTokenRow>(ACCESS_TOKEN_COLUMNS);
const refreshMembers = jsonMembers<RefreshTokenRow>(REFRESH_TOKEN_COLUMNS);
const eventMembers = jsonMembers<Omit<AuditEventRow, 'id'>>(AUDIT_EVENT_COLUMNS);

/**
 * The rows of a batch travel as three JSON arrays (an issue without a refresh
 * token or event adds none) and become rows of the table's own type through
 * json_populate_record, so the statement text stays the same for every batch. In
 * an exchange each row also carries `spends`, the hash of the refresh token or
 * code it is issued for, which no column has and json_populate_record leaves out.
 */
export function issuedRows(issues: readonly IssuedTokens[], spent?: readonly string[]): [access: string, refresh: string, event: string] {
  const access: string[] = [];
  const refreshes: string[] = [];
  const events: string[] = [];
  issues.forEach(({ access: token, refresh, event }, index) => {
    const spends = spent === undefined ? '' : `,"spends":${jsonValue(spent[index])}`;
    access.push(`{${accessMembers(accessTokenRow(token, refresh?.tokenHash ?? null))}${spends}}`);
    if (refresh) refreshes.push(`{${refreshMembers(refreshTokenRow(refresh))}${spends}}`);
    if (event) events.push(`{${eventMembers(auditEventRow(event))}${spends}}`);
  });
  return [`[${access.join(',')}]`, `[${refreshes.join(',')}]`, `[${events.join(',')}]`];
}

/**
 * The inserts of a batch, each taking the rows `e` for which `condition` holds.
 * The condition reads the CTE that took the batch's row locks, so nothing is
 * written unless they are held, and no insert can run ahead of them (PostgreSQL
 * orders independent WITH sub-statements as it likes, but a sub-statement that
 * reads another's rows waits for them).
 */
export function insertsWhere(condition: RawBuilder<unknown>, access: unknown, refresh: unknown, event: unknown) {
  const insert = (table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly string[], rows: unknown) => sql`
    insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(columns.map((column) => sql.ref(`r.${column}`)))}
    from json_array_elements(${rows}::json) as e, json_populate_record(null::${sql.table(table)}, e) as r
    where ${condition}`;
  return sql`
    issued_access as (${insert('access_tokens', ACCESS_TOKEN_COLUMNS, access)}),
    issued_refresh as (${insert('refresh_tokens', REFRESH_TOKEN_COLUMNS, refresh)}),
    issued_event as (${insert('audit_events', AUDIT_EVENT_COLUMNS, event)})`;
}
