// PostgreSQL through a pg pool behind Kysely, configured for how Folio uses it.
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from 'kysely';
import pg from 'pg';
import type { OpenDatabase } from '../database.ts';
import { migrateToLatest } from '../migrations/provider.ts';
import type { Database } from '../schema.ts';
import { PostgresChanges } from './changes.ts';

// A database that is away costs a request seconds, not a hang: connecting and each
// query are bounded, and routes answer the failure with 503. Migrations, which may
// build an index on a large table, run without the query bound.
const CONNECT_TIMEOUT_MS = 2000;
const QUERY_TIMEOUT_MS = 3000;

/** Distinct statement texts given a name; past this, new texts go unnamed. */
const MAX_NAMED_STATEMENTS = 2000;

// Times are int8 Unix milliseconds, far below 2^53: read them as numbers, not strings.
const getTypeParser = ((oid: number, format?: 'text' | 'binary') =>
  oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

export interface PostgresOptions {
  /** Connections at most (FOLIO_DATABASE_POOL_SIZE); pg's 10 by default. */
  poolSize?: number;
  /** false for bulk work: no bound on each query's time. */
  queryTimeout?: boolean;
  /** Told when the connection that hears other instances' changes is proven (true) or lost (false). */
  onChangeNotices?: (listening: boolean) => void;
}

function createPool(connectionString: string, options: { max?: number; queryTimeout: boolean }): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: options.queryTimeout ? QUERY_TIMEOUT_MS : 0,
    types: { getTypeParser },
  });
  // An idle client losing its connection (a server restart) emits 'error' on the pool,
  // and a client in use emits it on itself; unheard, either would crash the process.
  // The statement fails on its own, and the pool drops the dead client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * Kysely sends every query unnamed, parsed and planned each time; named, a statement is
 * parsed once per connection and its plan kept. So no query may use `select *` or `returning *`:
 * a migration adding a column would fail a kept statement. Poolers in transaction mode must
 * support named statements (PgBouncer 1.21 and later).
 */
function namingStatements(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
      name = `folio_${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
  // Kysely keys its connections by what connect() returns, so each pooled client keeps one wrapper.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        const query = (text: string, values: unknown[]) => client.query({ name: nameOf(text), text, values });
        wrapper = { query, release: () => client.release() } as unknown as PostgresPoolClient;
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

export function openPostgres(connectionString: string, options: PostgresOptions = {}): OpenDatabase {
  const pool = createPool(connectionString, { max: options.poolSize, queryTimeout: options.queryTimeout ?? true });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namingStatements(pool) }) });
  const changes = new PostgresChanges(connectionString, options.onChangeNotices);
  return {
    kind: 'postgres',
    db,
    durableTransaction: (work) => db.transaction().execute(work),
    changes,
    migrate: async () => {
      const migrations = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(connectionString, { max: 1, queryTimeout: false }) }) });
      try {
        await migrateToLatest(migrations, 'postgres');
      } finally {
        await migrations.destroy();
      }
    },
    settingWarnings: () => settingWarnings(db),
    async close() {
      await changes.stop();
      await db.destroy();
    },
  };
}

/**
 * Named statements are planned from the statistics of their first runs and planned
 * again when ANALYZE renews them; without autovacuum's ANALYZE, a plan made while a
 * table was small stays as it grows.
 */
async function settingWarnings(db: Kysely<Database>): Promise<string[]> {
  // Advice only: a start must not fail because the settings could not be read.
  const rows = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings where name in ('autovacuum', 'track_counts')`.execute(db)
    .then((result) => result.rows, () => []);
  const off = rows.filter((row) => row.setting === 'off').map((row) => row.name);
  if (off.length === 0) return [];
  return [`PostgreSQL runs with ${off.join(' and ')} off, so no table is analyzed as it grows: query plans made while a table was small stay, and token requests may slow to a tenth; turn it on, or run ANALYZE regularly`];
}
