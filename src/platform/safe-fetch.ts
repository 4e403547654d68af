// Fetches a small JSON document from a URL a client chose (a client ID metadata
// document), without letting that client reach Folio's own network. Each URL,
// redirect targets included, is resolved here and every address checked; the
// connection then goes to a checked address, so a DNS answer that changes between
// check and connect (rebinding) is never used.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLoopbackHost } from './loopback.ts';
import { type ResolvedAddress, type Resolver, forbiddenAddressReason, systemResolver } from './public-addresses.ts';

export interface FetchOptions {
  /** Private, unique-local and CGNAT destinations; only when an operator configures it. */
  allowPrivateAddresses: boolean;
  /** Plain http and loopback addresses for a loopback host; never in production. */
  allowLoopbackHttp: boolean;
  userAgent: string;
  /** The draft's "Maximum Response Size" recommends 5 kilobytes. */
  maxBytes?: number;
  /** One deadline for DNS, connecting, headers and body, across redirects. */
  timeoutMs?: number;
  /** The draft says not to follow redirects when fetching a metadata document, hence 0. */
  maxRedirects?: number;
  resolve?: Resolver;
}

export const documentFetchDefaults = { maxBytes: 5 * 1024, timeoutMs: 5000, maxRedirects: 0 } as const;

/** What the cache needs to know how long the document stays fresh. */
export interface CachingHeaders {
  cacheControl?: string;
  expires?: string;
  date?: string;
  age?: string;
}

export interface FetchedDocument {
  json: unknown;
  caching: CachingHeaders;
}

/**
 * Why a document could not be had. `reason` may be shown to the client: it names
 * only hosts and URLs the client (or its server) named, never an address Folio
 * resolved; those go in `cause`, for logs.
 */
export class DocumentFetchError extends Error {
  constructor(readonly reason: string, options: { cause?: unknown } = {}) {
    super(reason, options);
    this.name = 'DocumentFetchError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function fetchJsonDocument(url: string, options: FetchOptions): Promise<FetchedDocument> {
  const maxBytes = options.maxBytes ?? documentFetchDefaults.maxBytes;
  const timeoutMs = options.timeoutMs ?? documentFetchDefaults.timeoutMs;
  const maxRedirects = options.maxRedirects ?? documentFetchDefaults.maxRedirects;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let target = url;
    for (let redirects = 0; ; redirects++) {
      const destination = await abortable(resolveDestination(target, options), controller.signal);
      const response = await request(destination, options.userAgent, controller.signal);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location !== undefined) {
        response.destroy();
        if (redirects >= maxRedirects) {
          throw new DocumentFetchError(maxRedirects === 0 ? `${target} redirects, and redirects are not followed` : `${url} redirects more than ${maxRedirects} times`);
        }
        target = new URL(location, target).href;
        continue;
      }
      return { json: parseJson(target, await readBody(target, response, maxBytes)), caching: cachingHeaders(response) };
    }
  } catch (error) {
    if (controller.signal.aborted) throw new DocumentFetchError(`${url} did not answer within ${timeoutMs} ms`, { cause: error });
    if (error instanceof DocumentFetchError) throw error;
    throw new DocumentFetchError(`Folio could not fetch ${url}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

export interface Destination {
  url: URL;
  addresses: ResolvedAddress[];
}

/**
 * The URL's scheme, then every address its host resolves to, checked before any
 * connection. An unresolvable host and a forbidden one get the same public reason,
 * so the answer does not reveal which names Folio's resolver knows.
 */
export async function resolveDestination(target: string, options: Pick<FetchOptions, 'allowPrivateAddresses' | 'allowLoopbackHttp' | 'resolve'>): Promise<Destination> {
  const url = new URL(target);
  const loopbackAllowed = options.allowLoopbackHttp && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackAllowed)) {
    throw new DocumentFetchError(`${target} does not use https`);
  }
  if (url.username !== '' || url.password !== '') throw new DocumentFetchError(`${target} contains credentials`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const refused = (cause: unknown) => new DocumentFetchError(`Folio does not fetch documents from ${host}`, { cause });
  let addresses: ResolvedAddress[];
  try {
    addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) === 6 ? 6 : 4 }] : await (options.resolve ?? systemResolver)(host);
  } catch (error) {
    throw refused(error);
  }
  if (addresses.length === 0) throw refused(new Error(`${host} resolved to no address`));
  const policy = { allowPrivateAddresses: options.allowPrivateAddresses, allowLoopback: loopbackAllowed };
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address, policy);
    if (reason !== null) throw refused(new Error(`${host} resolves to ${address}, ${reason}`));
  }
  return { url, addresses };
}

/** Answers the connection's own look-up with the addresses already checked. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

function request({ url, addresses }: Destination, userAgent: string, signal: AbortSignal): Promise<http.IncomingMessage> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': userAgent },
      lookup: pinnedLookup(addresses),
      agent: false,
      signal,
    }, resolve);
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function readBody(target: string, response: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  const status = response.statusCode ?? 0;
  const problem = status !== 200 ? `answered HTTP ${status}; only 200 is accepted`
    : mediaType(response.headers['content-type']) !== 'application/json' ? 'is not served as application/json'
      : (response.headers['content-encoding'] ?? 'identity') !== 'identity' ? 'is served compressed'
        : Number(response.headers['content-length'] ?? 0) > maxBytes ? `is larger than ${maxBytes} bytes`
          : null;
  if (problem !== null) {
    response.destroy();
    throw new DocumentFetchError(`${target} ${problem}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      response.destroy();
      throw new DocumentFetchError(`${target} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseJson(target: string, body: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (error) {
    throw new DocumentFetchError(`${target} is not valid JSON`, { cause: error });
  }
}

function cachingHeaders(response: http.IncomingMessage): CachingHeaders {
  const { 'cache-control': cacheControl, expires, date, age } = response.headers;
  return withoutUndefined({ cacheControl, expires, date, age });
}

/** Rejects as soon as `signal` aborts, for work (DNS) that cannot itself be cancelled. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
