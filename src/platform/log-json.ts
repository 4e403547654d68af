// JSON text for values written on every request (the access-log line's) or every
// token issue (the rows of a PostgreSQL batch), made without JSON.stringify's
// general machinery where a value's shape allows.

/** Strings JSON.stringify changes only by quoting them: printable ASCII but '"' and '\\'. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `JSON.stringify(value)`, without its fixed cost where the value is a plain
 * string or a finite number, which every member of an access-log line usually is.
 */
export function jsonValue(value: unknown): string | undefined {
  if (typeof value === 'string') return PLAIN_JSON_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
  // ECMA-262 SerializeJSONProperty writes a finite number as ToString does.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value === null) return 'null';
  return JSON.stringify(value) as string | undefined;
}
