// The embedded database: better-sqlite3 behind Kysely, configured for how Folio uses it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type DialectAdapter, type Driver, type SqliteDialectConfig, type QueryResult, type SqliteDatabase as KyselySqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database } from './schema.ts';
import { registerDatabaseChanges } from './database-changes.ts';
import { type DirectStatements, registerDirectStatements, type StatementExecutor } from './direct-statements.ts';
import { type WalSync, walSync } from './wal-sync.ts';
import { deletesDeadRowsOnly, type WriteReach, writeReach } from './written-tables.ts';

export const SQLITE_MEMORY = ':memory:';
/** How every transaction begins (FolioSqliteDialect says why). */
const BEGIN = 'begin immediate';
/** Distinct SQL texts kept prepared; Folio issues a few dozen, so this only bounds the odd IN (...) list. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The pages the WAL may hold before the COMMIT that passes them copies them back
 * into the database file: SQLite's automatic checkpoint, run inside that COMMIT on
 * the event loop, with an fsync of the WAL and one of the database file. A
 * checkpoint copies each page changed since the one before once, however many
 * commits changed it, and most commits of a token load change the same pages
 * again: the right-hand end of every table and index written in issue order, and
 * a grant's page in the indexes keyed by grant. At SQLite's default of 1,000 pages
 * checkpoints held the event loop 34 µs a refresh on average, about as long as all
 * of its other writing, and at 4,000 pages 24 µs (bench/sqlite-writes.ts); the
 * server answers refreshes 1.08-1.14x as fast, code exchanges 1.01-1.17x and
 * client_credentials as fast as before (docs/performance.md). The price: a WAL file
 * of up to 16 MB, and a checkpoint, when one runs, holds the loop longer: 42 ms at
 * most against 19 in that benchmark, and with a million dead tokens the longest
 * purge batch 76-100 ms against 43 (bench/purge-batches.ts), though the purge took
 * 0.81x the time.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4000;

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * A function that turns one row's values into an object with these column names.
 * better-sqlite3 builds row objects column by column, re-interning each name for
 * every row; for the 25-column portfolio rows that was half the time of the bearer
 * API's query. Reading rows as arrays and building them with one object literal,
 * generated once per statement from its column names (our own SQL, each name
 * quoted by JSON.stringify), halves it. A repeated name keeps the last value,
 * as better-sqlite3 does.
 */
function rowBuilder(names: readonly string[]): RowBuilder {
  // In a literal, `"__proto__": x` would set the prototype; computed, it is a plain key.
  const fields = names.map((name, index) => `${name === '__proto__' ? '["__proto__"]' : JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as RowBuilder;
}

/**
 * The connection's side of DatabaseChanges (database-changes.ts): `wrote` is
 * called before each statement that can write, saying which cached reads it can
 * change (written-tables.ts).
 */
function countingChanges(database: SqliteDatabase.Database) {
  const dataVersion = database.prepare('pragma data_version').pluck();
  let version = 0;
  let applicationsVersion = 0;
  let lastDataVersion: unknown;
  let checkedThisTurn = false;
  const nextTurn = () => { checkedThisTurn = false; };
  // PRAGMA data_version costs two fcntl calls and an fstat: made for every
  // read it cost the cached bearer GET a tenth of its throughput (docs/performance.md).
  // Once per turn of the event loop, it is shared by every
  // request that turn serves. Another process's commit is seen from the next
  // turn on (this process's writes at once); what it wrote is unknown, so it
  // outdates everything.
  const seeOtherProcesses = () => {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(nextTurn);
    const external = dataVersion.get();
    if (external !== lastDataVersion) {
      lastDataVersion = external;
      version++;
      applicationsVersion++;
    }
  };
  return {
    wrote(reach: WriteReach) {
      if (reach.bearerReads) version++;
      if (reach.applications) applicationsVersion++;
    },
    version() {
      seeOtherProcesses();
      return version;
    },
    applicationsVersion() {
      seeOtherProcesses();
      return applicationsVersion;
    },
    // Every commit, another process's too, reaches this connection's counter.
    trusted: () => true,
  };
}

type Wrote = (reach: WriteReach) => void;

/** Streamed reads (Kysely's `stream()`) under way: the connection runs nothing else until they end. */
interface Streams { open: number }

function readingRowsAsArrays(statement: SqliteDatabase.Statement, wrote: Wrote, streams: Streams): SqliteStatement {
  const rows = statement.reader ? statement.raw(true) : statement;
  // Counted before it runs: a read cached meanwhile is already out of date.
  const reach = writeReach(statement.source);
  // SQLite calls BEGIN IMMEDIATE not read-only, for the lock it takes; it changes no row.
  const changesNothing = statement.readonly || statement.source === BEGIN || deletesDeadRowsOnly(statement.source);
  const counted = changesNothing ? () => {} : () => wrote(reach);
  let names: string[] = [];
  let build: RowBuilder = rowBuilder(names);
  const objectsOf = (values: unknown[][]) => {
    // A schema change re-prepares the statement and may change `select *`'s columns.
    if (values.length > 0 && values[0]!.length !== names.length) {
      names = rows.columns().map((column) => column.name);
      build = rowBuilder(names);
    }
    return values.map(build);
  };
  return {
    reader: statement.reader,
    all: (parameters) => {
      counted();
      return objectsOf(rows.all(parameters) as unknown[][]);
    },
    run: (parameters) => {
      counted();
      return statement.run(parameters);
    },
    *iterate(parameters) {
      counted();
      streams.open++;
      try {
        for (const values of rows.iterate(parameters)) yield objectsOf([values as unknown[]])[0];
      } finally {
        streams.open--;
      }
    },
  };
}

/**
 * Kysely prepares every query afresh, and parsing SQL was a tenth of the server's
 * CPU on the bearer API under load; each distinct text is prepared once here.
 * A cached statement is safe to reuse: better-sqlite3 runs it to completion
 * synchronously, and re-prepares it itself after a schema change.
 */
function cachingStatements(database: SqliteDatabase.Database, wrote: Wrote, streams: Streams, wal: WalSync | undefined): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close() {
      database.close();
      // Kysely's close is synchronous; a sync under way finishes before the handle closes.
      void wal?.close();
    },
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = readingRowsAsArrays(database.prepare(text), wrote, streams);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * With synchronous=FULL, SQLite fsyncs the WAL inside COMMIT, on the event loop's
 * thread: about 0.8 ms on the development machine, during which no request is
 * served. 200 token issues a second, too spread out to share commits, held the
 * loop a sixth of the time (docs/performance.md). The group commit's transactions
 * therefore commit under NORMAL, which writes the WAL without fsyncing it, and the
 * same fsync runs on the thread pool before any of their callers is answered:
 * what FULL adds in WAL mode is exactly that fsync after each commit. The
 * setting can change only outside a transaction, and the caller holds the
 * connection, so between NORMAL and FULL nothing else runs on it.
 */
function committingSyncedApart(database: SqliteDatabase.Database, executor: StatementExecutor, wal: WalSync | undefined) {
  const [relaxed, strict, begin, commit, rollback] = ['pragma synchronous = NORMAL', 'pragma synchronous = FULL', BEGIN, 'commit', 'rollback']
    .map((text) => database.prepare(text));
  // Without a WAL (an in-memory database, or a file whose journal could not be
  // WAL), COMMIT keeps its own fsync, if any.
  const durableAtCommit = Promise.resolve();
  return async <T>(work: (trx: StatementExecutor) => Promise<T>) => {
    if (wal !== undefined) relaxed!.run();
    try {
      begin!.run();
      try {
        const value = await work(executor);
        commit!.run();
        const durable = wal?.sync() ?? durableAtCommit;
        // Marked handled here: the caller awaits it only after giving the connection back.
        durable.catch(() => {});
        return { value, durable };
      } finally {
        if (database.inTransaction) rollback!.run();
      }
    } finally {
      if (wal !== undefined) strict!.run();
    }
  };
}

/** Kysely's SQLite connection's executeQuery, the same result made at once (direct-statements.ts says why). */
function runningDirectly(database: SqliteDatabase.Database, statements: KyselySqliteDatabase, streams: Streams, wal: WalSync | undefined): DirectStatements {
  function run<Row>({ sql, parameters }: CompiledQuery<Row>): QueryResult<Row> {
    const statement = statements.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as Row[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }
  const executor: StatementExecutor = { executeQuery: async (query) => run(query) };
  return {
    idle: () => !database.inTransaction && streams.open === 0,
    run,
    executor,
    commitSyncedApart: committingSyncedApart(database, executor, wal),
  };
}

/**
 * Kysely's SQLite dialect with two changes to its transactions.
 *
 * They begin IMMEDIATE, taking the write lock at once. Begun plainly, a
 * transaction that reads before it writes holds only a snapshot, and if another
 * process on the file (a second server, the CLI) commits in between, its first
 * write fails at once with SQLITE_BUSY_SNAPSHOT, busy_timeout notwithstanding
 * (SQLite, "Isolation In SQLite" and the WAL documentation). Holding the lock
 * from BEGIN, it makes the other process wait its turn instead.
 *
 * And migrations run in one. Kysely's adapter says SQLite has no transactional
 * DDL (for the few statements that must run outside a transaction: changing
 * `foreign_keys`, VACUUM; Folio's migrations use none), so it ran each migration's
 * statements one by one: a process killed, or a statement failing, halfway through
 * one left it half done and unrecorded, and every later start failed on the
 * statement that had already run (an index already dropped, a column already
 * added). SQLite's CREATE, DROP and ALTER are transactional, so the migrations and
 * their records now commit together, as on PostgreSQL; a new database's whole
 * schema, with one fsync instead of one a statement.
 */
class FolioSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw(BEGIN));
      }
    })(this.config);
  }

  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }
}

export function createSqliteKysely(filename: string): Kysely<Database> {
  if (filename !== SQLITE_MEMORY) mkdirSync(dirname(filename), { recursive: true });
  const database = new SqliteDatabase(filename);
  // WAL lets readers run beside the single writer; meaningless for an in-memory database.
  const journal = filename === SQLITE_MEMORY ? 'memory' : database.pragma('journal_mode = WAL', { simple: true });
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // FULL rather than NORMAL: in WAL mode NORMAL may lose the last commits on power
  // loss, and a token or code the client already holds must still exist afterwards,
  // as must a revocation or a secret rotation the user was told had happened. Both
  // settings survive a crash of the process (kill -9): a commit has reached the
  // operating system either way. The price is one fsync per write transaction,
  // measured by `npm run bench` (README, Durability); the group commit's run on
  // the thread pool instead (committingSyncedApart).
  database.pragma('synchronous = FULL');
  // better-sqlite3 builds SQLite with a 16 MiB page cache, which fills page by page
  // under token writes and stays resident: ~12 MB more RSS after a few rounds of the
  // benchmark's writes. Look-ups by token hash land on random index pages of tables
  // far larger than either size in production, served from the operating system's
  // file cache both ways. The price, measured on the benchmark's small, growing
  // tables: writes perhaps 5-10% slower, within its run-to-run noise (docs/performance.md).
  database.pragma('cache_size = -4000');
  database.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  const changes = countingChanges(database);
  const streams: Streams = { open: 0 };
  // SQLite keeps the journal it had where WAL cannot work (a filesystem without shared memory, say).
  const wal = journal === 'wal' ? walSync(filename) : undefined;
  const statements = cachingStatements(database, changes.wrote, streams, wal);
  const db = new Kysely<Database>({ dialect: new FolioSqliteDialect({ database: statements }) });
  registerDatabaseChanges(db, changes);
  registerDirectStatements(db, runningDirectly(database, statements, streams, wal));
  return db;
}
