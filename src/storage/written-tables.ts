// What this process's statements can change of the reads kept in memory
// (kysely/read-cache.ts), judged from their SQL text: whether they can change an
// application row, so that client look-ups are forgotten on such a write only and
// not on every token issue; whether they can change an access token or a
// portfolio, the bearer API's reads, so that those are not forgotten on every
// token issue either; and whether they are a purge's deletions of dead rows,
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
 * Each write in a statement: its verb (with SQLite's `or replace`, say), and its
 * table, or a schema's name when a dot follows (which the caller cannot judge).
 */
const WRITE = /\b(?:(insert)\s+(?:or\s+(\w+)\s+)?into|(update)|(delete)\s+from)\s+"?(\w+)"?(\s*\.)?/gi;

/** An upsert, which may update the row it collides with. */
const UPSERT = /\bon\s+conflict\b[^;]*\bdo\s+update\b/i;

/**
 * Tables whose rows' updates or deletions change no access token or portfolio
 * row, by cascade or trigger, nor what a look-up makes of them: portfolios
 * cascade from users (migration 0001); an access token is not found once its grant
 * is gone, and one issued beside a refresh token is revoked and gone with it
 * (migration 0010), refresh tokens cascading from grants, applications and users;
 * so none of those is here.
 */
const BESIDE_BEARER_READS = new Set([
  'authorization_codes', 'consents', 'audit_events', 'sessions', 'login_failures', 'secret_reveals',
]);

/** Tables updated without a cascade: no foreign key follows an update (migrations 0001). */
const UPDATED_BESIDE_BEARER_READS = new Set([...BESIDE_BEARER_READS, 'grants', 'applications', 'users']);

/**
 * What follows `update refresh_tokens` in a rotation, which sets rotated_at alone:
 * a rotated refresh token's access tokens stay live. Any other SET list may revoke.
 */
const ROTATION_ONLY = /^\s*set\s+"?rotated_at"?\s*=\s*(?:\?|\$\d+)\s+(?:where|from|returning)\b/i;

/**
 * False only when every write in the statement leaves each access token and
 * portfolio row as it was: an insert into any table but portfolios (a new token
 * changes no cached one, and a token not found is never cached), an update of a
 * table they do not come from (of refresh tokens, a rotation), a deletion from a
 * table none cascades to. The
 * writes of a token issue, a refresh or a code exchange are all such, so bearer
 * reads are no longer forgotten on each of them; the PostgreSQL triggers that
 * tell other instances follow the same rule (no notice on a token insert,
 * migrations 0006 and 0008). True for anything it cannot read that way.
 */
export function mayChangeBearerReads(text: string): boolean {
  if (!DATA_WRITE.test(text) || UPSERT.test(text)) return true;
  let targets = 0;
  for (const write of text.matchAll(WRITE)) {
    const [whole, insert, conflictAction, update, , table, qualified] = write;
    if (qualified !== undefined) return true;
    const name = table!.toLowerCase();
    // SQLite's `insert or replace` deletes the rows it collides with.
    const replaces = insert !== undefined && conflictAction !== undefined && conflictAction.toLowerCase() === 'replace';
    const leavesThem = insert !== undefined && !replaces ? name !== 'portfolios'
      : update !== undefined ? UPDATED_BESIDE_BEARER_READS.has(name)
        || (name === 'refresh_tokens' && ROTATION_ONLY.test(text.slice(write.index + whole.length)))
      : BESIDE_BEARER_READS.has(name);
    if (!leavesThem) return true;
    targets++;
  }
  return targets === 0;
}

/** What a write can change of the reads kept in memory. */
export interface WriteReach {
  /** The access tokens and portfolios the bearer API reads (mayChangeBearerReads). */
  bearerReads: boolean;
  /** The applications client look-ups read (mayChangeApplications). */
  applications: boolean;
}

export function writeReach(text: string): WriteReach {
  return { bearerReads: mayChangeBearerReads(text), applications: mayChangeApplications(text) };
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
