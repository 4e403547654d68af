// Record ids in paths. Ids are `integer` columns (32-bit on PostgreSQL), so a
// larger number names no record: it is "not found", where passing it on made
// PostgreSQL refuse the query as out of range (a 500).
const MAX_RECORD_ID = 2_147_483_647;

/** The id a path segment names, or undefined when it cannot name a record. */
export function recordIdFrom(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(segment)) return undefined;
  const id = Number(segment);
  return id <= MAX_RECORD_ID ? id : undefined;
}
