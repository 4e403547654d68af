// Nothing secret in logs (DESIGN §2): tokens, secrets, codes, passwords and
// cookies are redacted wherever they appear in a log object or a logged URL.
import { destination as pinoDestination, pino, stdSerializers, symbols, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../config.ts';
import { credentialPrefixes } from './secrets.ts';
import { createTimeText, jsonValue, millisecondsJson } from './log-json.ts';

export const REDACTED = '[redacted]';

const SECRET_FIELDS = [
  'password', 'client_secret', 'secret', 'token', 'access_token', 'refresh_token',
  'code', 'code_verifier', 'csrf',
] as const;

/** Keys whose values never reach a log line, at any depth up to MAX_DEPTH. */
const SECRET_KEYS = new Set<string>([...SECRET_FIELDS, 'authorization', 'cookie', 'set-cookie']);
const MAX_DEPTH = 5;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Returns `value` with every secret-named key censored, copying only what it
 * changes. Only plain objects are walked: framework objects (a request, an
 * error) go through their serializers, which emit no secrets. A hand-written
 * walk rather than pino's wildcard redaction, which cost a tenth of the CPU
 * of a bearer API request when every request was logged.
 */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => scrubSecrets(item, depth + 1));
    return (items.some((item, index) => item !== value[index]) ? items : value) as T;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const child = value[key];
    const scrubbed = SECRET_KEYS.has(key.toLowerCase()) ? REDACTED : scrubSecrets(child, depth + 1);
    if (scrubbed !== child) {
      copy ??= { ...value };
      copy[key] = scrubbed;
    }
  }
  return (copy ?? value) as T;
}

/** Query parameters whose values are credentials (an OOB code page URL, a misdirected token). */
const SECRET_QUERY_PARAMETERS = new Set<string>(SECRET_FIELDS);

/**
 * Anything shaped like one of our credentials, wherever in a URL it was put (a
 * path segment, another parameter), percent-encoded or not: its prefix stays, so
 * a reader sees what leaked.
 */
const CREDENTIAL = new RegExp(
  `(${Object.values(credentialPrefixes).map((prefix) => prefix.replace(/_/g, '(?:_|%5f)')).join('|')})(?:[A-Za-z0-9_-]|%[0-9a-f]{2})+`,
  'gi',
);

/**
 * What every match of CREDENTIAL holds, whatever its case and encoding: most URLs
 * hold none, and testing for it costs a fraction of the replace, which cost an
 * access-log line several µs (docs/performance.md).
 */
const MAY_HOLD_CREDENTIAL = /folio(?:_|%5f)/i;

/** Replaces the values of credential-bearing query parameters, and any credential, in a path or URL. */
export function redactUrl(original: string): string {
  const url = MAY_HOLD_CREDENTIAL.test(original) ? original.replace(CREDENTIAL, `$1${REDACTED}`) : original;
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const query = url.slice(queryStart + 1).split('&').map((pair) => {
    const name = pair.split('=', 1)[0] ?? '';
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch { /* keep the raw name */ }
    return SECRET_QUERY_PARAMETERS.has(decoded) ? `${name}=${encodeURIComponent(REDACTED)}` : pair;
  });
  return `${url.slice(0, queryStart)}?${query.join('&')}`;
}

export interface LoggableRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/** Fastify's request shape, minus query secrets; replaces Fastify's default `req` serializer. */
function serializeRequest(req: LoggableRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    host: req.host ?? req.headers?.host,
    remoteAddress: req.ip ?? req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
  };
}

/** One member of an object's JSON, with its leading comma, or '' for a value JSON.stringify leaves out. */
function jsonMember(name: string, json: string | undefined): string {
  return json === undefined ? '' : `,"${name}":${json}`;
}

/**
 * `JSON.stringify(serializeRequest(req))`, the same text made member by member
 * without the object in between: cheaper on the access log's path. The names
 * need no escaping. When every member is there, as for any request Node parsed,
 * the text is made in one piece: joining optional members and slicing off the
 * first comma copied them out once more than writing the line does.
 */
function serializedRequestJson(req: LoggableRequest): string {
  const method = jsonValue(req.method);
  const url = jsonValue(typeof req.url === 'string' ? redactUrl(req.url) : req.url);
  const host = jsonValue(req.host ?? req.headers?.host);
  const remoteAddress = jsonValue(req.ip ?? req.socket?.remoteAddress);
  const remotePort = jsonValue(req.socket?.remotePort);
  if (method !== undefined && url !== undefined && host !== undefined && remoteAddress !== undefined && remotePort !== undefined) {
    return `{"method":${method},"url":${url},"host":${host},"remoteAddress":${remoteAddress},"remotePort":${remotePort}}`;
  }
  const members = jsonMember('method', method) + jsonMember('url', url) + jsonMember('host', host)
    + jsonMember('remoteAddress', remoteAddress) + jsonMember('remotePort', remotePort);
  return `{${members.slice(1)}}`;
}

export interface AccessLogEntry {
  reqId: string;
  req: LoggableRequest;
  statusCode: number;
  /** Milliseconds; the line holds them rounded to the microsecond. */
  responseTime: number;
}

/**
 * Writes the line `logger.child({ reqId }).info({ req, res: { statusCode }, responseTime },
 * 'request completed')` would, to the same stream and at the same level, but
 * assembled directly: pino's generic path (formatters, serializers, a stringifier
 * per key) cost ~11 µs a line, a tenth of a bearer API request's CPU. Its only
 * free text is the request, whose members are the serializer's. The one
 * difference: responseTime is rounded to the microsecond (millisecondsJson).
 */
export function createAccessLogWriter(logger: Logger): (entry: AccessLogEntry) => void {
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[symbols.streamSym]!;
  const bindings = (logger as unknown as Record<symbol, string>)[symbols.chindingsSym]!;
  const level = logger.levels.values.info!;
  const timeText = createTimeText();
  return ({ reqId, req, statusCode, responseTime }) => {
    if (!logger.isLevelEnabled('info')) return;
    stream.write(`{"level":${level},"time":${timeText()}${bindings},"reqId":${jsonValue(reqId)},`
      + `"req":${serializedRequestJson(req)},"res":{"statusCode":${statusCode}},`
      + `"responseTime":${millisecondsJson(responseTime)},"msg":"request completed"}\n`);
  };
}

// No pino `redact` paths besides: scrubSecrets already censors the authorization,
// cookie and set-cookie keys at any depth, and pino's redaction cloned the logged
// object on every request line.
const loggerOptions: Pick<LoggerOptions, 'serializers' | 'formatters'> = {
  serializers: { req: serializeRequest, err: stdSerializers.err },
  formatters: { log: (object) => scrubSecrets(object) },
};

/**
 * Standard output, written asynchronously a few KiB at a time rather than a
 * write per line. pino flushes what is held when the process exits; the timer
 * writes it out when traffic is too light to fill a buffer. A kill -9 may lose
 * the last lines of the log, never data.
 */
function standardOutput(): DestinationStream {
  return pinoDestination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 }) as DestinationStream;
}

/** The process logger; pass it to Fastify as `loggerInstance` so requests share the redaction. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino({ ...loggerOptions, level: config.logLevel }, destination ?? standardOutput());
}
