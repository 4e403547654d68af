// PostgreSQL: what the token issue statements share (token-issue-postgres.ts,
// token-exchanges-postgres.ts): a batch's rows as parameters and the inserts that
// take them.
import { type RawBuilder, sql } from 'kysely';
import type { AccessToken } from '../records.ts';
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
  // Each row one literal with every member it may have: JSON.stringify leaves out the
  // undefined ones (an access token's rotated_at, spends outside an exchange). Spreads
  // cost V8 about 8k instructions a row here (docs/performance.md, twenty-second session).
  const tokenRow = (token: AccessToken, rotatedAt: number | null | undefined, spends: string | undefined):
    Record<(typeof REFRESH_TOKEN_COLUMNS)[number] | 'spends', unknown> => ({
    token_hash: token.tokenHash, grant_id: token.grantId, application_id: token.applicationId, user_id: token.userId,
    scope: scopeToColumn(token.scope), created_at: token.createdAt, expires_at: token.expiresAt, revoked_at: token.revokedAt,
    origin_code_hash: token.originCodeHash, rotated_at: rotatedAt, spends,
  });
  const access: unknown[] = [];
  const refreshes: unknown[] = [];
  const events: unknown[] = [];
  issues.forEach(({ access: token, refresh, event }, index) => {
    const spends = spent?.[index];
    access.push(tokenRow(token, undefined, spends));
    if (refresh) refreshes.push(tokenRow(refresh, refresh.rotatedAt, spends));
    if (event) {
      const row: ReturnType<typeof auditEventRow> & { spends?: string } = auditEventRow(event);
      row.spends = spends;
      events.push(row);
    }
  });
  return [JSON.stringify(access), JSON.stringify(refreshes), JSON.stringify(events)];
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
