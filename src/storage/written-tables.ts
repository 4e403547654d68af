// What this process's statements can change of the reads kept in memory
// (kysely/read-cache.ts), judged from their SQL text: whether they can change an
// application row, so that client look-ups are forgotten on such a write only and
// not on every token issue; and whether they are a purge's deletions of dead rows,
// which change no cached read at all.

/** The table each INSERT, UPDATE or DELETE in a statement writes, CTEs' included. */
const WRITE_TARGET = /\b(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from)\s+"?(\w+)"?/gi;

/** A statement that begins otherwise (BEGIN, COMMIT, DDL, a pragma) is taken to change anything. */
const DATA_WRITE = /^\s*(?:insert|update|delete|with)\b/i;

/**
 * Tables whose rows no application row depends on: writing them changes no
 * application, by cascade or trigger. An application's only parent is its owner
 * (users), whose deletion cascades to it, so users is not here.
 */
const BESIDE_APPLICATIONS = new Set([
  'access_tokens', 'refresh_tokens', 'authorization_codes', 'grants', 'consents', 'audit_events',
  'sessions', 'login_failures', 'portfolios', 'secret_reveals',
]);

/**
 * False only when every table the statement writes is one no application depends
 * on; true for anything it cannot read that way (an unknown table, an upsert's
 * `do update`, a statement that is not a plain data write), which costs no more
 * than a look-up read afresh.
 */
export function mayChangeApplications(text: string): boolean {
  if (!DATA_WRITE.test(text)) return true;
  let targets = 0;
  for (const [, table] of text.matchAll(WRITE_TARGET)) {
    if (!BESIDE_APPLICATIONS.has(table!.toLowerCase())) return true;
    targets++;
  }
  return targets === 0;
}

/**
 * Ends a statement that deletes only rows no cached read can miss: tokens revoked,
 * or expired an hour ago, which a bearer look-up answers 401 whether they are
 * there or not (kysely/purge.ts), and stale sign-in counters, which no cached
 * read holds. Such a statement leaves every cached read be.
 */
export const DELETES_DEAD_ROWS_ONLY = ' /* folio: dead rows only */';

export function deletesDeadRowsOnly(text: string): boolean {
  return text.endsWith(DELETES_DEAD_ROWS_ONLY);
}

/**
 * On PostgreSQL such a statement also sets this, local to its transaction, for
 * the trigger on access_tokens to read (migration 0008): it is set while the
 * statement decides which rows to delete, so every row it deletes has set it.
 */
export const DELETING_DEAD_ROWS_SETTING = 'folio.deleting_dead_rows';
