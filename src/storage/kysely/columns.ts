// Conversions between record values and the column encodings in schema.ts.

export const scopeToColumn = (scope: readonly string[]): string => scope.join(' ');
export const scopeFromColumn = (value: string): string[] => value.split(' ').filter((item) => item.length > 0);
export const flagToColumn = (value: boolean): number => (value ? 1 : 0);
export const flagFromColumn = (value: number): boolean => value === 1;

/** `currency_code` → `currencyCode`: a record's fields are named as its columns, in camel case. */
export type FieldOf<Column extends string> = Column extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<FieldOf<Tail>>}` : Column;

const fieldNames = new Map<string, string>();

export function fieldOf<Column extends string>(column: Column): FieldOf<Column> {
  let field = fieldNames.get(column);
  if (field === undefined) {
    field = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    fieldNames.set(column, field);
  }
  return field as FieldOf<Column>;
}

/** A row's values under their fields' names; the caller converts the columns that store an encoding. */
export function fieldsOf<Row extends object>(row: Row): { [Column in keyof Row & string as FieldOf<Column>]: Row[Column] } {
  const fields: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) fields[fieldOf(column)] = value;
  return fields as { [Column in keyof Row & string as FieldOf<Column>]: Row[Column] };
}

/** The values of `record` for `columns`, each read from its field; the caller encodes the columns that need it. */
export function columnsOf<const Column extends string, Fields extends Record<FieldOf<Column>, unknown>>(
  record: Fields, columns: readonly Column[],
): { [Each in Column]: Fields[FieldOf<Each>] } {
  const values: Record<string, unknown> = {};
  for (const column of columns) values[column] = record[fieldOf(column)];
  return values as { [Each in Column]: Fields[FieldOf<Each>] };
}

/** Rows an UPDATE or DELETE changed. */
export function changedRows(result: { numUpdatedRows: bigint } | { numDeletedRows: bigint }): number {
  return Number('numUpdatedRows' in result ? result.numUpdatedRows : result.numDeletedRows);
}

/** The column names given, checked to be every column of `Row`: queries never select `*` (postgres-database.ts). */
export function everyColumn<Row>() {
  return <const Columns extends readonly (keyof Row & string)[]>(
    columns: Columns & (Exclude<keyof Row, Columns[number]> extends never ? unknown : { missing: Exclude<keyof Row, Columns[number]> }),
  ): Columns => columns;
}
