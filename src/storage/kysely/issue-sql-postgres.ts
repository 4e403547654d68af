// PostgreSQL: what the token issue statements share (token-issue-postgres.ts,
// token-exchanges-postgres.ts): a batch's rows as parameters and the inserts that
// take them.
import { type RawBuilder, sql } from 'kysely';
import { jsonValue } from '../../platform/log-json.ts';
import type { AccessToken, NewAuditEvent } from '../records.ts';
import type { IssuedTokens } from '../stores.ts';
import { AUDIT_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { scopeToColumn } from './columns.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS } from './tokens.ts';

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
    const spends = spent?.[index];
    // An access token is bound to the refresh token issued beside it (migration 0010).
    access.push(tokenRowJson(token, refresh?.tokenHash ?? null, undefined, spends));
    if (refresh) refreshes.push(tokenRowJson(refresh, undefined, refresh.rotatedAt, spends));
    if (event) events.push(eventRowJson(event, spends));
  });
  return [`[${access.join(',')}]`, `[${refreshes.join(',')}]`, `[${events.join(',')}]`];
}

// The rows' JSON is written member by member, not by JSON.stringify: that took
// about 7% of a PostgreSQL refresh's instructions, and a row's values are
// short plain strings and integers, which jsonValue writes without it
// (docs/performance.md). The members are the table's columns (ACCESS_TOKEN_COLUMNS,
// REFRESH_TOKEN_COLUMNS, AUDIT_EVENT_COLUMNS; test/unit/issued-rows.test.ts holds
// them to that), and an undefined one is left out as JSON.stringify leaves it.

// jsonValue gives undefined only for what JSON leaves out, which these types exclude.
const json = (value: string | number | null): string => jsonValue(value)!;

const optionalMember = (name: string, value: string | number | null | undefined): string =>
  value === undefined ? '' : `,"${name}":${json(value)}`;

/**
 * An access token's row (rotatedAt undefined) or a refresh token's (refreshTokenHash
 * undefined): each has one column the other lacks.
 */
function tokenRowJson(
  token: AccessToken, refreshTokenHash: string | null | undefined, rotatedAt: number | null | undefined, spends: string | undefined,
): string {
  return `{"token_hash":${json(token.tokenHash)},"grant_id":${json(token.grantId)}`
    + `,"application_id":${json(token.applicationId)},"user_id":${json(token.userId)},"scope":${json(scopeToColumn(token.scope))}`
    + `,"created_at":${json(token.createdAt)},"expires_at":${json(token.expiresAt)},"revoked_at":${json(token.revokedAt)}`
    + `,"origin_code_hash":${json(token.originCodeHash)}${optionalMember('refresh_token_hash', refreshTokenHash)}`
    + `${optionalMember('rotated_at', rotatedAt)}${optionalMember('spends', spends)}}`;
}

function eventRowJson(event: NewAuditEvent, spends: string | undefined): string {
  const row = auditEventRow(event);
  return `{"type":${json(row.type)},"user_id":${json(row.user_id)},"application_id":${json(row.application_id)}`
    + `,"ip":${json(row.ip)},"detail":${json(row.detail)},"created_at":${json(row.created_at)}${optionalMember('spends', spends)}}`;
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
