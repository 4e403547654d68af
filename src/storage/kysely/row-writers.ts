// How a token issue's rows leave Folio: as one INSERT's parameters on SQLite
// (token-writes.ts), as JSON on PostgreSQL (issue-sql-postgres.ts). Both take each
// table's row (accessTokenRow, refreshTokenRow, auditEventRow) and its column list
// (ACCESS_TOKEN_COLUMNS, ...), so a column added to a table is written by both
// without another edit.
//
// Each reader is made once per column list, as code naming each member (`row.a`),
// as Ajv and Fastify's serializers make theirs. A loop reading `row[column]` went
// through V8's megamorphic keyed load, one table's rows after another's, and built
// the JSON one small concatenation a member: about 20k more instructions a
// PostgreSQL refresh than writers naming their members (docs/performance.md).
import { jsonValue } from '../../platform/log-json.ts';

/** Column names are our own constants; anything else is refused rather than written into code. */
const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

function checkedNames(columns: readonly string[]): readonly string[] {
  if (columns.length === 0) throw new Error('a row of no columns');
  for (const column of columns) {
    if (!COLUMN_NAME.test(column)) throw new Error(`not a column name: ${JSON.stringify(column)}`);
  }
  return columns;
}

/** `(row) => [row.a, row.b, ...]`: a row's values in the order of `columns`. */
export function valuesInColumnOrder<Row>(columns: readonly (keyof Row & string)[]): (row: Row) => unknown[] {
  const members = checkedNames(columns).map((column) => `row.${column}`);
  return new Function('row', `return [${members.join(', ')}];`) as (row: Row) => unknown[];
}

/**
 * `(row) => '"a":' + json(row.a) + ',"b":' + ...`: a row's columns as the members
 * of a JSON object, without its braces, each value written by jsonValue (plain
 * strings and numbers without JSON.stringify's fixed cost).
 */
export function jsonMembers<Row>(columns: readonly (keyof Row & string)[]): (row: Row) => string {
  const members = checkedNames(columns).map((column, index) => `'${index === 0 ? '' : ','}"${column}":' + json(row.${column})`);
  const write = new Function('json', `return (row) => ${members.join(' + ')};`) as (json: typeof jsonValue) => (row: Row) => string;
  return write(jsonValue);
}
