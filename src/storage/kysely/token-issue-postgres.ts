// PostgreSQL: each token issue is one statement, so one round trip and one
// implicit transaction, where a transaction of its own statements took seven
// (BEGIN, grant, rotation, two inserts, audit event, COMMIT). client_credentials
// issues on one grant go in batches, a statement for many (grant-batches.ts).
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { AccessToken } from '../records.ts';
import type { Database } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { AUDIT_EVENT_COLUMNS, auditEventRow } from './audit.ts';
import { scopeToColumn } from './columns.ts';
import { GrantBatches } from './grant-batches.ts';
import { preparedStatement } from './prepared.ts';
import type { TokenIssue } from './token-writes.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS } from './tokens.ts';

/**
 * The rows of one issue or a batch travel as three JSON arrays (an issue without
 * a refresh token or event adds none) and become rows of the table's own type
 * through json_populate_recordset, so the statement text stays the same for every issue.
 */
function issuedRows(issues: readonly IssuedTokens[]): [access: string, refresh: string, event: string] {
  const tokenRow = (token: AccessToken): Record<(typeof ACCESS_TOKEN_COLUMNS)[number], unknown> => ({
    token_hash: token.tokenHash, grant_id: token.grantId, application_id: token.applicationId, user_id: token.userId,
    scope: scopeToColumn(token.scope), created_at: token.createdAt, expires_at: token.expiresAt, revoked_at: token.revokedAt,
    origin_code_hash: token.originCodeHash,
  });
  const access: unknown[] = [];
  const refreshes: unknown[] = [];
  const events: unknown[] = [];
  for (const { access: token, refresh, event } of issues) {
    access.push(tokenRow(token));
    if (refresh) refreshes.push({ ...tokenRow(refresh), rotated_at: refresh.rotatedAt });
    if (event) events.push(auditEventRow(event));
  }
  return [JSON.stringify(access), JSON.stringify(refreshes), JSON.stringify(events)];
}

/**
 * The inserts of an issue, each taking its rows only when `gate` (a CTE) returned
 * one: a row out of `gate` means the conditions held and its row locks are taken,
 * so nothing is written otherwise, and no insert can run ahead of those locks.
 */
function insertsAfter(gate: string, access: unknown, refresh: unknown, event: unknown) {
  const insert = (table: 'access_tokens' | 'refresh_tokens' | 'audit_events', columns: readonly string[], rows: unknown) => sql`
    insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(columns.map((column) => sql.ref(`r.${column}`)))}
    from ${sql.table(gate)}, json_populate_recordset(null::${sql.table(table)}, ${rows}::json) as r`;
  return sql`
    issued_access as (${insert('access_tokens', ACCESS_TOKEN_COLUMNS, access)}),
    issued_refresh as (${insert('refresh_tokens', REFRESH_TOKEN_COLUMNS, refresh)}),
    issued_event as (${insert('audit_events', AUDIT_EVENT_COLUMNS, event)})`;
}

/** How stale a grant's last use may be before an issue records it again. */
const LAST_USE_RESOLUTION_MS = 1000;

/**
 * The CTE `claimed`: the grant's id while the grant is live (and `condition` holds),
 * with a lock on its row that a revocation's UPDATE must wait for, so no token lands
 * on a grant revoked meanwhile. The lock is a shared one: every issue of a
 * client_credentials client is on one grant, and an exclusive lock held until each
 * commit had made those issues wait for each other's fsync, one at a time (README,
 * Performance). The last use is written only when it is a second old, and always
 * before the shared lock is taken (`shared` reads `touched` first), so no statement
 * holds a shared lock while it waits for an exclusive one: two of them could
 * otherwise deadlock. When `touched` matched, its UPDATE already holds the row's
 * exclusive lock and `shared` takes nothing more.
 */
function claimGrant(grantId: number, usedAt: number, condition: RawBuilder<unknown>) {
  return sql`
    touched as (
      update grants set last_used_at = ${usedAt}
      where id = ${grantId} and revoked_at is null and ${condition}
        and (last_used_at is null or last_used_at <= ${usedAt}::bigint - ${sql.lit(LAST_USE_RESOLUTION_MS)})
      returning id
    ), shared as (
      select id from grants
      where id = ${grantId} and revoked_at is null and ${condition} and (select count(*) from touched) = 0
      for share
    ), claimed as (select id from touched union all select id from shared)`;
}

/**
 * Lock order is a grant revocation's: the grant row first, then the refresh token. The
 * inserts read their gate's rows, so they cannot run before those locks are held
 * (PostgreSQL orders independent WITH sub-statements as it likes, but a
 * sub-statement that reads another's RETURNING rows waits for them). A
 * revocation that commits first leaves the grant claim matching nothing.
 */
export function issueInOneStatement(db: Kysely<Database>): TokenIssue {
  const save = preparedStatement((grantId: number, usedAt: number, access: string, refresh: string, event: string) => ({
    compile: () => sql`
      with ${claimGrant(grantId, usedAt, sql`true`)}, ${insertsAfter('claimed', access, refresh, event)}
      select id from claimed`.compile(db),
  }));

  // RFC 9700 §4.14.2: of the requests presenting one refresh token, exactly one
  // rotates it. A loser waits for the winner's lock on the token row and, under
  // READ COMMITTED, re-checks the WHERE clause on the rotated row: it matches
  // nothing, and the inserts, which read `rotated`, insert nothing. The grant is
  // only claimed when the token looked rotatable, so a replayed token (reuse
  // detection's case) leaves its last use alone.
  const rotate = preparedStatement((
    grantId: number, previousHash: string, now: number, access: string, refresh: string, event: string,
  ) => ({
    compile: () => sql`
      with ${claimGrant(grantId, now, sql`exists (
        select 1 from refresh_tokens
        where token_hash = ${previousHash} and rotated_at is null and revoked_at is null
      )`)}, rotated as (
        update refresh_tokens set rotated_at = ${now}
        where token_hash = ${previousHash} and rotated_at is null and revoked_at is null
          and exists (select 1 from claimed)
        returning token_hash
      ), ${insertsAfter('rotated', access, refresh, event)}
      select token_hash from rotated`.compile(db),
  }));

  // The code exchange is the rotation's twin: the code row takes the refresh
  // token's place, so of two redemptions exactly one spends it, and a loser that
  // then revokes what the code issued (a replay) finds the winner's tokens committed.
  const redeem = preparedStatement((
    grantId: number, codeHash: string, now: number, access: string, refresh: string, event: string,
  ) => ({
    compile: () => sql`
      with ${claimGrant(grantId, now, sql`exists (
        select 1 from authorization_codes where code_hash = ${codeHash} and consumed_at is null
      )`)}, consumed as (
        update authorization_codes set consumed_at = ${now}
        where code_hash = ${codeHash} and consumed_at is null
          and exists (select 1 from claimed)
        returning code_hash
      ), ${insertsAfter('consumed', access, refresh, event)}
      select code_hash from consumed`.compile(db),
  }));

  // The issues of a batch share one grant and its claim: all are written, or none.
  // Rotations and redemptions are not batched: each spends a credential of its own
  // grant (a user's refresh chain waits for each answer), so one grant seldom has
  // two at once, and a batch across grants would take several grants' locks.
  const saves = new GrantBatches<IssuedTokens, boolean>(async (issues) => {
    const usedAt = issues.reduce((latest, tokens) => Math.max(latest, tokens.access.createdAt), 0);
    const result = await save(db, issues[0]!.access.grantId, usedAt, ...issuedRows(issues));
    return issues.map(() => result.rows.length > 0);
  });

  return {
    save: (tokens) => saves.submit(tokens.access.grantId, tokens),
    async rotate(previousHash, next, now) {
      const result = await rotate(db, next.access.grantId, previousHash, now, ...issuedRows([next]));
      return result.rows.length > 0;
    },
    async redeem(codeHash, tokens, now) {
      const result = await redeem(db, tokens.access.grantId, codeHash, now, ...issuedRows([tokens]));
      return result.rows.length > 0;
    },
  };
}
