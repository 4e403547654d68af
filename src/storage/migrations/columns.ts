// Column shapes both dialects agree on, so a migration reads the same for SQLite and PostgreSQL.
import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';
import type { StorageKind } from '../schema.ts';

/** A surrogate key that is never reused, so audit rows never point at a stranger's record. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, never>,
  kind: StorageKind,
): CreateTableBuilder<T, 'id'> {
  return kind === 'sqlite'
    ? table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().generatedByDefaultAsIdentity());
}

export const required = (col: ColumnDefinitionBuilder) => col.notNull();

export const cascadingTo = (target: string) => (col: ColumnDefinitionBuilder) =>
  col.notNull().references(target).onDelete('cascade');

export const flag = (defaultValue: 0 | 1) => (col: ColumnDefinitionBuilder) =>
  col.notNull().defaultTo(defaultValue);
