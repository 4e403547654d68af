// Both dialects, for tests and the bench. The server imports only the one its
// database URL names (open.ts), so a SQLite deployment never loads pg.
export { SQLITE_MEMORY, WAL_AUTOCHECKPOINT_PAGES, createSqliteKysely } from './sqlite-dialect.ts';
export { createPostgresKysely } from './postgres-dialect.ts';
