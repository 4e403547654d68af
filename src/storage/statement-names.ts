// Names for the SQL texts Folio compiles once (kysely/prepared.ts), so that the
// PostgreSQL dialect can run them as named prepared statements.

const names = new Map<string, string>();

/**
 * Gives a compiled-once text its name. Only texts registered here are named,
 * and they are a fixed set written in code, so the names (and the statements
 * each connection keeps prepared) stay few.
 */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `folio_${names.size + 1}`);
}

export function statementName(sql: string): string | undefined {
  return names.get(sql);
}
