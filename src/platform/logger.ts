// Nothing secret in logs (DESIGN §2): tokens, secrets, codes, passwords and
// cookies are redacted wherever they appear in a log object or a logged URL.
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import { credentialPrefixes } from './secrets.ts';
import { jsonValue } from './log-json.ts';
import { standardOutput } from './log-output.ts';

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
 * error) go through their serializers, which emit no secrets. A walk of our own
 * because pino's `redact` names fixed paths, and a secret may sit at any depth.
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

/** What every match of CREDENTIAL holds, whatever its case and encoding: most URLs hold none, and skip the replace. */
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

/** `JSON.stringify(serializeRequest(req))`, made member by member without the object in between. */
function serializedRequestJson(req: LoggableRequest): string {
  const members = jsonMember('method', jsonValue(req.method))
    + jsonMember('url', jsonValue(typeof req.url === 'string' ? redactUrl(req.url) : req.url))
    + jsonMember('host', jsonValue(req.host ?? req.headers?.host))
    + jsonMember('remoteAddress', jsonValue(req.ip ?? req.socket?.remoteAddress))
    + jsonMember('remotePort', jsonValue(req.socket?.remotePort));
  return `{${members.slice(1)}}`;
}

export interface AccessLogEntry {
  reqId: string;
  req: LoggableRequest;
  statusCode: number;
  /** Milliseconds; the line holds them rounded to the microsecond. */
  responseTime: number;
}

/** pino's default base fields, named so that the access-log writer writes them too. */
const BASE = { pid: process.pid, hostname: hostname() };

/** The stream each logger made by createLogger writes to, for its access-log writer. */
const destinations = new WeakMap<Logger, DestinationStream>();

/**
 * Writes the line `logger.child({ reqId }).info({ req, res: { statusCode }, responseTime },
 * 'request completed')` would, to the same stream at the same level, assembled
 * here because pino's generic path (formatters, serializers, a stringifier per
 * key) cost a bearer GET more than 5%. Its only free text is the request,
 * whose members are the serializer's; responseTime is rounded to the microsecond.
 */
export function createAccessLogWriter(logger: Logger): (entry: AccessLogEntry) => void {
  const stream = destinations.get(logger);
  if (stream === undefined) {
    return ({ reqId, req, statusCode, responseTime }) => logger.child({ reqId })
      .info({ req, res: { statusCode }, responseTime: Math.round(responseTime * 1000) / 1000 }, 'request completed');
  }
  const bindings = `,${JSON.stringify({ ...BASE, ...logger.bindings() }).slice(1, -1)}`;
  const level = logger.levels.values.info!;
  return ({ reqId, req, statusCode, responseTime }) => {
    if (!logger.isLevelEnabled('info')) return;
    stream.write(`{"level":${level},"time":${Date.now()}${bindings},"reqId":${jsonValue(reqId)},`
      + `"req":${serializedRequestJson(req)},"res":{"statusCode":${statusCode}},`
      + `"responseTime":${Math.round(responseTime * 1000) / 1000},"msg":"request completed"}\n`);
  };
}

// No pino `redact` paths besides: scrubSecrets already censors the authorization,
// cookie and set-cookie keys at any depth.
const loggerOptions: Pick<LoggerOptions, 'base' | 'serializers' | 'formatters'> = {
  base: BASE,
  serializers: { req: serializeRequest, err: stdSerializers.err },
  formatters: { log: (object) => scrubSecrets(object) },
};

/** The process logger; pass it to Fastify as `loggerInstance` so requests share the redaction. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const stream = destination ?? standardOutput();
  const logger = pino({ ...loggerOptions, level: config.logLevel }, stream);
  destinations.set(logger, stream);
  return logger;
}
