// Prometheus metrics at GET /metrics, through prom-client but for the two families
// every response adds to (request-metrics.ts). One registry per app,
// so instances and tests do not share counts. Every label is bounded: route
// patterns (never raw URLs), HTTP methods, status codes, grant types and the
// OAuthErrorCode union. No token, client id or user id is ever a label.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Registry } from 'prom-client';
import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError, type OAuthErrorCode } from '../oauth/errors.ts';
import type { Storage } from '../storage/stores.ts';
import { createRequestMetrics } from './request-metrics.ts';

export interface Metrics {
  countTokenIssued(grantType: string): void;
  countRateLimited(): void;
  /** One response: its route pattern (or 'unmatched'), method, status, seconds taken and OAuth error code, if any. */
  countResponse(route: string, method: string, status: number, seconds: number, error: OAuthErrorCode | undefined): void;
  /** Everything counted, in the text format. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

export function createMetrics(storage: Pick<Storage, 'readsFromMemory'>): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const tokens = new Counter({ name: 'folio_tokens_issued_total', help: 'Token responses issued, by grant type', labelNames: ['grant_type'], registers });
  const rateLimited = new Counter({ name: 'folio_rate_limit_rejections_total', help: 'API requests refused with 429 rate_limited', registers });
  new Gauge({
    name: 'folio_reads_from_memory',
    help: '1 while bearer reads and client look-ups may be answered from memory, 0 while each goes to the database',
    registers,
    // Read when scraped: on PostgreSQL a 0 means this instance has lost the connection
    // that hears other instances' changes, and every bearer request reads the database.
    collect() {
      this.set(storage.readsFromMemory() ? 1 : 0);
    },
  });
  // The two families every response adds to are counted apart (request-metrics.ts).
  const requests = createRequestMetrics();
  const errors = new Counter({ name: 'folio_oauth_errors_total', help: 'Error answers by OAuth error code', labelNames: ['error'], registers });
  return {
    countTokenIssued: (grantType) => tokens.inc({ grant_type: grantType }),
    countRateLimited: () => rateLimited.inc(),
    countResponse(route, method, status, seconds, error) {
      requests.record(route, method, status, seconds);
      if (error !== undefined) errors.inc({ error });
    },
    scrape: async () => `${await registry.metrics()}\n${requests.text()}\n`,
    contentType: registry.contentType,
  };
}

/** Counts a response Fastify has sent. */
export function countResponse(metrics: Metrics, request: FastifyRequest, reply: FastifyReply): void {
  // The not-found handler and a path refused before routing have no route pattern:
  // every such path is one label value.
  const route = request.is404 ? 'unmatched' : request.routeOptions.url ?? 'unmatched';
  const method = METHODS.has(request.method) ? request.method : 'OTHER';
  metrics.countResponse(route, method, reply.statusCode, reply.elapsedTime / 1000, reply.oauthErrorCode);
}

/**
 * With FOLIO_METRICS_TOKEN set, a scrape must present it as a bearer token (RFC 6750
 * §2.1; Prometheus's `authorization` setting); compared as digests, in constant time.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  const expected = token === null ? null : digest(token);
  app.get('/metrics', { config: { bearer: {} } }, async (request, reply) => {
    if (expected !== null) {
      const presented = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(request.headers.authorization ?? '')?.[1];
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        throw new OAuthError('invalid_token', 'GET /metrics needs the bearer token set in FOLIO_METRICS_TOKEN');
      }
    }
    return reply.type(metrics.contentType).send(await metrics.scrape());
  });
}

const digest = (value: string) => createHash('sha256').update(value).digest();
