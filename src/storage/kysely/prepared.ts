import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { directStatements, type StatementExecutor } from '../direct-statements.ts';
import type { Database } from '../schema.ts';
import { nameStatement } from '../statement-names.ts';

export type PreparedQuery<Row, Args extends unknown[]> = (...args: Args) => Promise<Row[]>;

/** Runs on the executor given at each call: the database, or a transaction. */
export type PreparedStatement<Args extends unknown[], Row = unknown> = (executor: StatementExecutor, ...args: Args) => Promise<QueryResult<Row>>;

export interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

/**
 * Kysely builds an operation tree and compiles it to SQL on every call, which
 * showed as a steady share of CPU on the bearer API and the token endpoint; the
 * hottest statements are built once here. `build` is called once with
 * placeholders standing in for the arguments, so it must pass each argument to
 * the query builder unchanged (convert values before the call, not inside).
 * On PostgreSQL the text is also parsed and planned once per connection
 * (statement-names.ts), so keep these to look-ups and writes by key, whose
 * generic plan is the plan any argument would get.
 */
function compileOnce<Row, Args extends unknown[]>(build: (...args: Args) => Compilable<Row>): (args: Args) => CompiledQuery<Row> {
  const placeholders = Array.from({ length: build.length }, (_, index) => `\u0000folio-argument-${index}`);
  const compiled = build(...(placeholders as Args)).compile();
  const argumentAt = compiled.parameters.map((value) => placeholders.indexOf(value as string));
  if (new Set(argumentAt.filter((index) => index !== -1)).size !== placeholders.length) {
    throw new Error(`a prepared statement does not use each of its ${placeholders.length} arguments unchanged: ${compiled.sql}`);
  }
  // PostgreSQL fixes a named statement's result columns when it is first parsed; once a
  // migration adds a column, `select *` fails on that connection with "cached plan must
  // not change result type" until the connection closes (an instance still running the
  // previous release during a rolling deploy would fail every look-up). Name the columns.
  if (/\b(select|returning)\s+("?\w+"?\.)?\*/i.test(compiled.sql)) {
    throw new Error(`a prepared statement must name its columns (everyColumn), not use *: ${compiled.sql}`);
  }
  nameStatement(compiled.sql);
  const { query, queryId, sql } = compiled;
  // A literal, not `{ ...compiled }`: Kysely freezes what it compiles, and V8 copies
  // a frozen object the slow way, about a thousand instructions a statement.
  return (args) => ({ query, queryId, sql, parameters: compiled.parameters.map((value, index) => (argumentAt[index] === -1 ? value : args[argumentAt[index]!])) });
}

/** A read built and compiled once, then run with fresh arguments. */
export function prepared<Row, Args extends unknown[]>(
  db: Kysely<Database>,
  build: (...args: Args) => Compilable<Row>,
): PreparedQuery<Row, Args> {
  const withArguments = compileOnce(build);
  const direct = directStatements(db);
  if (direct === undefined) return async (...args: Args) => (await db.executeQuery<Row>(withArguments(args))).rows;
  return async (...args: Args) => {
    const query = withArguments(args);
    return direct.idle() ? direct.run(query).rows : (await db.executeQuery<Row>(query)).rows;
  };
}

/** A write built and compiled once; its result carries numAffectedRows, and the rows of a RETURNING clause. */
export function preparedStatement<Args extends unknown[], Row = unknown>(build: (...args: Args) => Compilable<Row>): PreparedStatement<Args, Row> {
  const withArguments = compileOnce(build);
  return (executor, ...args) => executor.executeQuery(withArguments(args));
}

/**
 * The column names given, checked by the compiler to be every column of `Row`, for
 * prepared reads that return whole rows without `select *` (compileOnce says why).
 */
export function everyColumn<Row>() {
  return <const Columns extends readonly (keyof Row & string)[]>(
    columns: Columns & (Exclude<keyof Row, Columns[number]> extends never ? unknown : { missing: Exclude<keyof Row, Columns[number]> }),
  ): Columns => columns;
}
