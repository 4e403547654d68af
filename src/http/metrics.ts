// Prometheus metrics at GET /metrics. One registry per app (never prom-client's
// global), so instances and tests do not share counts. Every label is bounded:
// route patterns (never raw URLs), HTTP methods, status codes, grant types and
// the OAuthErrorCode union. No token, client id or user id is ever a label.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry } from 'prom-client';
import type { Storage } from '../storage/stores.ts';
import { errorCodeOf } from './errors.ts';
import type { EveryResponse } from './every-response.ts';
import { registerRequestMetrics } from './request-metrics.ts';

export interface Metrics {
  registry: Registry;
  tokensIssued: Counter<'grant_type'>;
  rateLimited: Counter;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

export function createMetrics(): Metrics {
  const registry = new Registry();
  return {
    registry,
    tokensIssued: new Counter({ name: 'folio_tokens_issued_total', help: 'Token responses issued, by grant type', labelNames: ['grant_type'], registers: [registry] }),
    rateLimited: new Counter({ name: 'folio_rate_limit_rejections_total', help: 'API requests refused with 429 rate_limited', registers: [registry] }),
  };
}

/** Add before the routes, so the response hook sees every one of them. */
export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  everyResponse: EveryResponse,
  storage: Pick<Storage, 'readsFromMemory'>,
): void {
  const { registry } = metrics;
  // Read when scraped: on PostgreSQL a 0 means this instance has lost the connection
  // that hears other instances' changes, and every bearer request reads the database.
  new Gauge({
    name: 'folio_reads_from_memory',
    help: '1 while bearer reads and client look-ups may be answered from memory, 0 while each goes to the database',
    registers: [registry],
    collect() { this.set(storage.readsFromMemory() ? 1 : 0); },
  });
  const recordRequest = registerRequestMetrics(registry);
  const errors = new Counter({ name: 'folio_oauth_errors_total', help: 'Error answers by OAuth error code', labelNames: ['error'], registers: [registry] });

  everyResponse.observe((request, reply) => {
    // The not-found handler and a path refused before routing have no route pattern:
    // every such path is one label value.
    const route = request.is404 ? 'unmatched' : request.routeOptions.url ?? 'unmatched';
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    recordRequest(route, method, reply.statusCode, reply.elapsedTime / 1000);
    const code = errorCodeOf(reply);
    if (code !== undefined) errors.inc({ error: code });
  });

  app.get('/metrics', async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
