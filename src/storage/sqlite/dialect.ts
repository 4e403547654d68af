// Kysely's SQLite dialect with two changes to its transactions, and prepared
// statements kept for reuse.
import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery, type DatabaseConnection, type DialectAdapter, type Driver, SqliteAdapter, SqliteDialect, type SqliteDialectConfig,
  SqliteDriver, type SqliteStatement,
} from 'kysely';

/** Distinct SQL texts kept prepared: Folio sends a few hundred at most, variable IN lists included. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Transactions begin IMMEDIATE, taking the write lock at once: begun plainly, one that
 * reads before it writes fails with SQLITE_BUSY_SNAPSHOT, whatever busy_timeout says,
 * if another process on the file (a second server, the CLI) commits in between.
 *
 * Migrations run in one transaction with their record: SQLite's DDL is transactional,
 * so a process killed halfway through a migration leaves none of it done.
 */
export class FolioSqliteDialect extends SqliteDialect {
  private readonly folioConfig: SqliteDialectConfig;

  constructor(database: SqliteDatabase.Database) {
    const config = { database: keepingStatements(database) };
    super(config);
    this.folioConfig = config;
  }

  override createDriver(): Driver {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      }
    })(this.folioConfig);
  }

  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }
}

/**
 * Kysely prepares every query afresh, parsing the same SQL again on every request. A
 * prepared statement is safe to reuse: better-sqlite3 runs each to completion at once
 * and prepares it again itself after a schema change.
 */
function keepingStatements(database: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = database.prepare(sql) as unknown as SqliteStatement;
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
