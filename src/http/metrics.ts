// Prometheus metrics at GET /metrics. One set per app, so instances and tests do
// not share counts. Every label is bounded: route patterns (never raw URLs), HTTP
// methods, status codes, grant types and the OAuthErrorCode union. No token,
// client id or user id is ever a label.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthErrorCode } from '../oauth/errors.ts';
import type { Storage } from '../storage/stores.ts';
import { PROMETHEUS_CONTENT_TYPE, counter, exposition, labelledCounter } from './prometheus-text.ts';
import { createRequestMetrics } from './request-metrics.ts';

export interface Metrics {
  countTokenIssued(grantType: string): void;
  countRateLimited(): void;
  /** One response: its route pattern (or 'unmatched'), method, status, seconds taken and OAuth error code, if any. */
  countResponse(route: string, method: string, status: number, seconds: number, error: OAuthErrorCode | undefined): void;
  /** Everything counted, in the text format. */
  scrape(): string;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

export function createMetrics(storage: Pick<Storage, 'readsFromMemory'>): Metrics {
  const tokensIssued = labelledCounter('folio_tokens_issued_total', 'Token responses issued, by grant type', 'grant_type');
  const rateLimited = counter('folio_rate_limit_rejections_total', 'API requests refused with 429 rate_limited');
  const requests = createRequestMetrics();
  const errors = labelledCounter('folio_oauth_errors_total', 'Error answers by OAuth error code', 'error');
  const families = [
    tokensIssued,
    rateLimited,
    {
      name: 'folio_reads_from_memory',
      help: '1 while bearer reads and client look-ups may be answered from memory, 0 while each goes to the database',
      type: 'gauge',
      // Read when scraped: on PostgreSQL a 0 means this instance has lost the connection
      // that hears other instances' changes, and every bearer request reads the database.
      samples: () => [{ labels: {}, value: storage.readsFromMemory() ? 1 : 0 }],
    },
    ...requests.families,
    errors,
  ] as const;
  return {
    countTokenIssued: (grantType) => tokensIssued.inc(grantType),
    countRateLimited: () => rateLimited.inc(),
    countResponse(route, method, status, seconds, error) {
      requests.record(route, method, status, seconds);
      if (error !== undefined) errors.inc(error);
    },
    scrape: () => exposition(families),
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

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_request, reply) => reply.type(PROMETHEUS_CONTENT_TYPE).send(metrics.scrape()));
}
