// Request bodies as flat string parameters, whatever the content type
// (DESIGN §2: clients send urlencoded, multipart and JSON). Parameters given
// twice are remembered so the protocol core can refuse them (RFC 6749 §3.2).
import { OAuthError } from '../oauth/errors.ts';

export type Params = Record<string, string>;

/** Where a Params object keeps the names it saw twice; a symbol, so no parameter can be named it. */
const REPEATED = Symbol('repeated parameters');
/** Where an unparseable query string's Params keeps the error (see parseQueryString). */
const MALFORMED = Symbol('malformed query string');
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const MAX_PARAMS = 100;

/** Builds params from name/value pairs; a null-prototype object so "__proto__" is just a name. */
export function collectParams(pairs: Iterable<[string, string]>): Params {
  const params: Params = Object.create(null);
  const repeated: string[] = [];
  let count = 0;
  for (const [name, value] of pairs) {
    if (++count > MAX_PARAMS) throw new OAuthError('invalid_request', `At most ${MAX_PARAMS} parameters are accepted`);
    refuseNul(name);
    refuseNul(value);
    if (name in params) {
      if (!repeated.includes(name)) repeated.push(name);
      continue;
    }
    params[name] = value;
  }
  // Not enumerable: the names travel with the object but are no parameter of it.
  if (repeated.length > 0) Object.defineProperty(params, REPEATED, { value: repeated });
  return params;
}

/**
 * No parameter of the protocol (RFC 6749 Appendix A) or of a form may hold NUL,
 * and PostgreSQL refuses it in text: it would turn a lookup into a 500.
 */
function refuseNul(text: string): void {
  if (text.includes('\u0000')) throw new OAuthError('invalid_request', 'Parameters must not contain NUL characters');
}

export function repeatedParamsOf(params: object | undefined | null): string[] {
  return (params as { [REPEATED]?: string[] } | null | undefined)?.[REPEATED] ?? [];
}

export function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new OAuthError('invalid_request', 'The request is not valid UTF-8');
  }
}

/** A form-urlencoded name or value decoded, or undefined where its percent-encoding is bad. */
export function formDecoded(text: string): string | undefined {
  // Most names and values are plain: nothing to decode.
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function decodeComponent(text: string): string {
  const decoded = formDecoded(text);
  if (decoded === undefined) throw new OAuthError('invalid_request', 'The request has invalid percent-encoding');
  return decoded;
}

/** application/x-www-form-urlencoded, refusing bad percent-encoding instead of guessing. */
export function parseUrlEncoded(text: string): Params {
  const pairs: [string, string][] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = decodeComponent(equals === -1 ? part : part.slice(0, equals));
    const value = equals === -1 ? '' : decodeComponent(part.slice(equals + 1));
    if (name !== '') pairs.push([name, value]);
  }
  return collectParams(pairs);
}

/** A JSON object of scalars; nested objects and arrays are not parameters. */
export function paramsFromJson(text: string): Params {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_request', 'The request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new OAuthError('invalid_request', 'The JSON body must be an object');
  }
  const values = new Map(Object.entries(parsed));
  const pairs: [string, string][] = [];
  for (const name of topLevelKeys(text)) {
    const value = values.get(name);
    if (value === null) continue;
    if (typeof value === 'object') throw new OAuthError('invalid_request', `Parameter ${name.slice(0, 40)} must be a string`);
    pairs.push([name, String(value)]);
  }
  return collectParams(pairs);
}

/**
 * The keys of a valid JSON object's top level in order, repeats included:
 * JSON.parse keeps only the last of a repeated key, and a parameter given twice
 * must be refused in a JSON body as in a form (RFC 6749 §3.2).
 */
function topLevelKeys(json: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let at = 0; at < json.length; at++) {
    const char = json[at];
    if (char === '"') {
      const start = at;
      for (at++; json[at] !== '"'; at++) if (json[at] === '\\') at++;
      let next = at + 1;
      while (json[next] === ' ' || json[next] === '\t' || json[next] === '\n' || json[next] === '\r') next++;
      if (depth === 1 && json[next] === ':') keys.push(JSON.parse(json.slice(start, at + 1)) as string);
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
  }
  return keys;
}

/**
 * Fastify's querystringParser: a query string read with the same strict rules as a
 * form body. It must not throw (a throw there escapes Fastify's request handling
 * and ends the process), so a malformed query string becomes an empty query that
 * carries its error, for malformedQueryError to answer with.
 */
export function parseQueryString(text: string): Params {
  try {
    return parseUrlEncoded(text);
  } catch (error) {
    const empty: Params = Object.create(null);
    Object.defineProperty(empty, MALFORMED, { value: error });
    return empty;
  }
}

/** The error a query string parsed by parseQueryString was refused with, if it was. */
export function malformedQueryError(query: unknown): Error | undefined {
  return (query as { [MALFORMED]?: Error } | null | undefined)?.[MALFORMED];
}
