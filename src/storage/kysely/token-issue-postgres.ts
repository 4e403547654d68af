// PostgreSQL: token issues go to the database in batches, each one statement, so
// one round trip and one implicit transaction, where a transaction of an issue's
// own statements took seven (BEGIN, grant, rotation, two inserts, audit event,
// COMMIT). Issues that arrive while a statement of theirs is in flight share the
// next (statement-batches.ts): client_credentials issues per grant, here; rotations
// and code exchanges across grants (token-exchanges-postgres.ts).
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import type { IssuedTokens } from '../stores.ts';
import { insertsWhere, issuedRows } from './issue-sql-postgres.ts';
import { StatementBatches } from './statement-batches.ts';
import { preparedStatement } from './prepared.ts';
import { exchangesInBatches } from './token-exchanges-postgres.ts';
import { LAST_USE_RESOLUTION_MS, type TokenIssue } from './token-writes.ts';

/**
 * The CTE `claimed`: the grant's id while the grant is live, with a lock on its row
 * that a revocation's UPDATE must wait for, so no token lands on a grant revoked
 * meanwhile. The statement takes no other row, so it never waits while holding
 * one, and stays out of any deadlock with the exchanges' batches. The lock is a shared one: every issue of a
 * client_credentials client is on one grant, and an exclusive lock held until each
 * commit had made those issues wait for each other's fsync, one at a time (docs/performance.md).
 * The last use is written only when it is a second old, and always
 * before the shared lock is taken (`shared` reads `touched` first), so no statement
 * holds a shared lock while it waits for an exclusive one: two of them could
 * otherwise deadlock. When `touched` matched, its UPDATE already holds the row's
 * exclusive lock and `shared` takes nothing more.
 */
function claimGrant(grantId: number, usedAt: number) {
  return sql`
    touched as (
      update grants set last_used_at = ${usedAt}
      where id = ${grantId} and revoked_at is null
        and (last_used_at is null or last_used_at <= ${usedAt}::bigint - ${sql.lit(LAST_USE_RESOLUTION_MS)})
      returning id
    ), shared as (
      select id from grants
      where id = ${grantId} and revoked_at is null and (select count(*) from touched) = 0
      for share
    ), claimed as (select id from touched union all select id from shared)`;
}

/**
 * The saves of a batch share one grant (they are batched by grant) and its claim:
 * all are written, or none. A statement locks only that grant's row, as a single
 * issue did, and its last use is written at the batch's latest issue.
 */
export function issueInBatches(db: Kysely<Database>): TokenIssue {
  const save = preparedStatement((grantId: number, usedAt: number, access: string, refresh: string, event: string) => ({
    compile: () => sql`
      with ${claimGrant(grantId, usedAt)}, ${insertsWhere(sql`exists (select 1 from claimed)`, access, refresh, event)}
      select id from claimed`.compile(db),
  }));
  const saves = new StatementBatches<IssuedTokens, boolean>(async (issues) => {
    const usedAt = issues.reduce((latest, tokens) => Math.max(latest, tokens.access.createdAt), 0);
    const result = await save(db, issues[0]!.access.grantId, usedAt, ...issuedRows(issues));
    return issues.map(() => result.rows.length > 0);
  });
  const exchanges = exchangesInBatches(db);

  return {
    save: (tokens) => saves.submit(tokens.access.grantId, tokens),
    rotate: (previousHash, next, now) => exchanges.rotate({ spent: previousHash, tokens: next, now }),
    redeem: (codeHash, tokens, now) => exchanges.redeem({ spent: codeHash, tokens, now }),
  };
}
