// What operators and developers read about the running service: health and
// readiness, Prometheus metrics, and the OpenAPI document with its Swagger UI.
import type { FastifyPluginAsync } from 'fastify';
import type { Storage } from '../../storage/stores.ts';
import { type Metrics, registerMetricsRoute } from '../metrics.ts';
import { registerOpenApiDocument } from '../openapi.ts';
import { registerApiDocs } from '../routes/api-docs.ts';
import { registerHealth } from '../routes/health.ts';

export interface OperationsDeps {
  storage: Storage;
  metrics: Metrics;
  /** FOLIO_METRICS_TOKEN, or null. */
  metricsToken: string | null;
}

export const operations: FastifyPluginAsync<OperationsDeps> = async (app, { storage, metrics, metricsToken }) => {
  registerHealth(app, { storage });
  registerMetricsRoute(app, metrics, metricsToken);
  registerOpenApiDocument(app);
  registerApiDocs(app);
};
