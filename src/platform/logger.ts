// Nothing secret in logs (DESIGN §2): tokens, secrets, codes, passwords and
// cookies are redacted wherever they appear in a log object or a logged URL.
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../config.ts';

export const REDACTED = '[redacted]';

const SECRET_FIELDS = [
  'password', 'client_secret', 'secret', 'token', 'access_token', 'refresh_token',
  'code', 'code_verifier', 'csrf',
] as const;

/** pino wildcards match one level each, so each field is listed down to a fixed depth. */
const MAX_DEPTH = 4;

function atEveryDepth(field: string): string[] {
  return Array.from({ length: MAX_DEPTH + 1 }, (_, depth) => [...Array<string>(depth).fill('*'), field].join('.'));
}

export const redactOptions = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    'headers.authorization',
    'headers.cookie',
    'headers["set-cookie"]',
    ...SECRET_FIELDS.flatMap(atEveryDepth),
  ],
  censor: REDACTED,
};

/** Query parameters whose values are credentials (an OOB code page URL, a misdirected token). */
const SECRET_QUERY_PARAMETERS = new Set<string>(SECRET_FIELDS);

/** Replaces the values of credential-bearing query parameters in a path or URL. */
export function redactUrl(url: string): string {
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

interface LoggableRequest {
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

export const loggerOptions: Pick<LoggerOptions, 'redact' | 'serializers'> = {
  redact: redactOptions,
  serializers: { req: serializeRequest, err: stdSerializers.err },
};

/** The process logger; pass it to Fastify as `loggerInstance` so requests share the redaction. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = { ...loggerOptions, level: config.logLevel };
  return destination === undefined ? pino(options) : pino(options, destination);
}
