// PostgreSQL through a pg pool behind Kysely, configured for how Folio uses it.
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { registerDatabaseChanges } from './database-changes.ts';
import { PostgresChanges } from './postgres-changes.ts';
import type { Database } from './schema.ts';
import { statementName } from './statement-names.ts';
import { deletesDeadRowsOnly, mayChangeApplications } from './written-tables.ts';

// A database that is away must cost a request seconds, not hang it: connecting (or
// waiting for a free pooled connection) and each query are bounded, and the
// failure is StorageUnavailableError, which routes answer with 503. Folio's queries
// are indexed look-ups and bounded batches; migrations, which may build an index
// on a large table, run without the query bound (open.ts).
const CONNECT_TIMEOUT_MS = 2000;
const QUERY_TIMEOUT_MS = 3000;

// Times are int8 Unix milliseconds, far below 2^53, so a JS number holds them exactly;
// the driver's default would hand back strings.
const getTypeParser = ((oid: number, format?: 'text' | 'binary') =>
  oid === pg.types.builtins.INT8
    ? (value: string) => Number(value)
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

export interface PostgresOptions {
  /** false for migrations and bulk work: no per-query time bound. */
  queryTimeout?: boolean;
  /** Connections at most; pg's 10 by default. */
  poolSize?: number;
  /** Told when the connection that hears other instances' changes is proven (true) or lost (false). */
  onChangeNotices?: (listening: boolean) => void;
}

export function createPostgresKysely(connectionString: string, options: PostgresOptions = {}): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: options.queryTimeout === false ? 0 : QUERY_TIMEOUT_MS,
    types: { getTypeParser },
  });
  // An idle client losing its connection (server restart) emits 'error' on the pool,
  // which would otherwise crash the process; the next query reports the outage instead.
  pool.on('error', () => {});
  // A client in use (say between two statements of a transaction) has no pool listener,
  // and its 'error' would crash the process just the same. The statement fails on its
  // own, and the pool drops the dead client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const changes = new PostgresChanges(connectionString, options.onChangeNotices);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingNamedStatements(pool, changes) }) });
  registerDatabaseChanges(db, changes);
  return db;
}

/** Distinct write texts whose classification is kept; Folio sends a few dozen. */
const CLASSIFIED_TEXTS = 500;

/** mayChangeApplications, worked out once per distinct text: the token issue's statement is long. */
function rememberingClassification(): (text: string) => boolean {
  const known = new Map<string, boolean>();
  return (text) => {
    let answer = known.get(text);
    if (answer === undefined) {
      if (known.size >= CLASSIFIED_TEXTS) known.clear();
      answer = mayChangeApplications(text);
      known.set(text, answer);
    }
    return answer;
  };
}

/** Folio's reads are plain SELECTs; anything else (BEGIN and COMMIT too) is counted as a write. */
const READ = /^\s*select\b/i;
/** How Kysely opens and ends a transaction. */
const TRANSACTION_START = /^\s*(?:begin|start\s+transaction)\b/i;
const TRANSACTION_END = /^\s*(?:commit|rollback|end|abort)\s*;?\s*$/i;

/**
 * Kysely sends every query unnamed, which PostgreSQL parses and plans afresh each
 * time. The statements Folio compiles once (token, code and client look-ups, the
 * portfolio list, token writes) go out named instead: pg parses a name once per
 * connection, and after five runs the server keeps a generic plan. The bearer
 * API on PostgreSQL served 14–23% more requests so (docs/performance.md). Poolers
 * in transaction mode must support named statements (PgBouncer 1.21 and later).
 */
function preparingNamedStatements(pool: pg.Pool, changes: PostgresChanges): PostgresPool {
  const writesApplications = rememberingClassification();
  // One wrapper per pooled client, for as long as it lives: Kysely keys its
  // connection objects by what connect() returns (a WeakMap), so a fresh wrapper
  // on every checkout would build a new one per query and fill that map.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    // Whether the transaction open on this connection wrote what can change an
    // application. Other connections see such a change only from its COMMIT, so
    // the COMMIT counts as that write too, and a transaction of token writes
    // (a revocation) leaves the client look-ups be.
    let transactionChangesApplications = false;
    const changesApplications = (text: string) => {
      if (TRANSACTION_START.test(text)) {
        transactionChangesApplications = false;
        return false;
      }
      if (TRANSACTION_END.test(text)) {
        const changed = transactionChangesApplications;
        transactionChangesApplications = false;
        return changed;
      }
      const changes = writesApplications(text);
      transactionChangesApplications ||= changes;
      return changes;
    };
    const query = (text: string, parameters: readonly unknown[]) => {
      const name = statementName(text);
      const values = parameters as unknown[];
      const sent = client.query(name === undefined ? { text, values } : { name, text, values });
      if (READ.test(text) || deletesDeadRowsOnly(text)) return sent;
      // Counted as it goes out, so a read that overlaps it keeps nothing, and again
      // once it is done (committed, for a statement outside a transaction), so a read
      // that began in between, and saw the rows from before, keeps nothing either.
      const applications = changesApplications(text);
      changes.wrote(applications);
      return sent.finally(() => changes.wrote(applications));
    };
    // Only the (sql, parameters) form: the cursor form serves Kysely's streaming,
    // which needs a cursor class in the dialect's options, and Folio gives none.
    return { query, release: () => client.release() } as unknown as PostgresPoolClient;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => Promise.all([changes.stop(), pool.end()]).then(() => undefined),
  };
}
