// PostgreSQL through a pg pool behind Kysely, configured for how Folio uses it.
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { registerDatabaseChanges } from './database-changes.ts';
import { PostgresChanges } from './postgres-changes.ts';
import type { Database } from './schema.ts';
import { statementName } from './statement-names.ts';
import { deletesDeadRowsOnly, type WriteReach, writeReach } from './written-tables.ts';

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

/** writeReach, worked out once per distinct text: the token issue's statement is long. */
function rememberingClassification(): (text: string) => WriteReach {
  const known = new Map<string, WriteReach>();
  return (text) => {
    let answer = known.get(text);
    if (answer === undefined) {
      if (known.size >= CLASSIFIED_TEXTS) known.clear();
      answer = writeReach(text);
      known.set(text, answer);
    }
    return answer;
  };
}

const REACHES_NOTHING: WriteReach = Object.freeze({ bearerReads: false, applications: false });

/**
 * Folio's reads are plain SELECTs; anything else is counted as a write that
 * reaches what written-tables.ts says, a BEGIN nothing and a COMMIT or ROLLBACK
 * what its transaction wrote.
 */
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
  const reachOf = rememberingClassification();
  // One wrapper per pooled client, for as long as it lives: Kysely keys its
  // connection objects by what connect() returns (a WeakMap), so a fresh wrapper
  // on every checkout would build a new one per query and fill that map.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    // What the transaction open on this connection wrote can change. Other
    // connections see such a change only from its COMMIT, so the COMMIT counts
    // as those writes too, and a transaction of token writes (a revocation)
    // leaves the client look-ups be, one of token issues the bearer reads.
    let transactionReach = REACHES_NOTHING;
    const reachOfStatement = (text: string): WriteReach => {
      if (TRANSACTION_START.test(text)) {
        transactionReach = REACHES_NOTHING;
        return REACHES_NOTHING;
      }
      if (TRANSACTION_END.test(text)) {
        const reach = transactionReach;
        transactionReach = REACHES_NOTHING;
        return reach;
      }
      const reach = reachOf(text);
      if ((reach.bearerReads && !transactionReach.bearerReads) || (reach.applications && !transactionReach.applications)) {
        transactionReach = {
          bearerReads: reach.bearerReads || transactionReach.bearerReads,
          applications: reach.applications || transactionReach.applications,
        };
      }
      return reach;
    };
    const query = (text: string, parameters: readonly unknown[]) => {
      const name = statementName(text);
      const values = parameters as unknown[];
      const sent = client.query(name === undefined ? { text, values } : { name, text, values });
      if (READ.test(text) || deletesDeadRowsOnly(text)) return sent;
      // Counted as it goes out, so a read that overlaps it keeps nothing, and again
      // once it is done (committed, for a statement outside a transaction), so a read
      // that began in between, and saw the rows from before, keeps nothing either.
      const reach = reachOfStatement(text);
      changes.wrote(reach);
      return sent.finally(() => changes.wrote(reach));
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
