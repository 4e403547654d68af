// JSON text for values written on every request (the access-log line's) or every
// token issue (the rows of a PostgreSQL batch), made without the general machinery
// where a value's shape allows: each piece here cost a bearer GET a few per cent
// of its instructions (`bench/instructions.ts`, docs/performance.md).

/** Strings JSON.stringify changes only by quoting them: printable ASCII but '"' and '\\'. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `JSON.stringify(value)`, without its fixed cost where the value is a plain
 * string or a finite number, which every member of an access-log line usually
 * is: the seven calls a line took 7.5k instructions of a bearer GET's 160k.
 */
export function jsonValue(value: unknown): string | undefined {
  if (typeof value === 'string') return PLAIN_JSON_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
  // ECMA-262 SerializeJSONProperty writes a finite number as ToString does.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value === null) return 'null';
  return JSON.stringify(value) as string | undefined;
}

/** Below this many microseconds (about 17 minutes) a duration's count is a small integer. */
const SMALL_MICROSECONDS = 2 ** 30;

/**
 * A duration in milliseconds as a JSON number, rounded to the microsecond, the
 * clock's useful resolution. It is made from integers: V8 writes a fractional
 * number through its shortest-digits conversion, about 1.1k instructions, where
 * a small integer's text comes from a cache. Trailing zeros are dropped, so the
 * text is what JSON.stringify writes for the rounded number.
 */
export function millisecondsJson(milliseconds: number): string | undefined {
  const micros = Math.round(milliseconds * 1000);
  if (!(micros >= 0 && micros < SMALL_MICROSECONDS)) return jsonValue(micros / 1000);
  const whole = Math.floor(micros / 1000);
  const fraction = micros - whole * 1000;
  if (fraction === 0) return String(whole);
  if (fraction % 100 === 0) return `${whole}.${fraction / 100}`;
  if (fraction % 10 === 0) return `${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/**
 * `String(Date.now())`, made at most once a millisecond. The time is past 2^31,
 * so V8 holds it as a heap number and writes it the slow way (about 1.1k
 * instructions); under load several lines share each millisecond.
 */
export function createTimeText(now: () => number = Date.now): () => string {
  let lastTime = Number.NaN;
  let lastText = '';
  return () => {
    const time = now();
    if (time !== lastTime) {
      lastTime = time;
      lastText = String(time);
    }
    return lastText;
  };
}
