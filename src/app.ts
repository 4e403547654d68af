// The only place that wires things together: stores, clock and randomness go
// in; a Fastify instance with every route comes out. The process entry
// (server.ts) listens; tests call inject().
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.ts';
import { accessLog } from './http/access-log.ts';
import { createEveryResponse } from './http/every-response.ts';
import { authorizationPages } from './http/groups/authorization-pages.ts';
import { bearerApi } from './http/groups/bearer-api.ts';
import { everyRoute } from './http/groups/every-route.ts';
import { mcp } from './http/groups/mcp.ts';
import { operations } from './http/groups/operations.ts';
import { tokenEndpoints } from './http/groups/token-endpoints.ts';
import { webPages } from './http/groups/web-pages.ts';
import { countResponse, createMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { serverOptions } from './http/server-options.ts';
import { createSessions } from './http/sessions.ts';
import { createGrantRegistry, observeGrants } from './oauth/grants/registry.ts';
import { protectedResources } from './oauth/resources.ts';
import type { ClientMetadata } from './oauth/client-metadata.ts';
import { withMetadataDocumentClients } from './oauth/metadata-document-clients.ts';
import { createDocumentCache } from './platform/document-cache.ts';
import { PASSWORD_COST } from './platform/password.ts';
import { type FetchOptions, fetchJsonDocument } from './platform/safe-fetch.ts';
import { createRateLimiter } from './platform/rate-limit/create.ts';
import { MemoryRateLimiter } from './platform/rate-limit/memory.ts';

export type { AppDeps } from './app-deps.ts';

/** Client ID metadata documents fetched with the configuration's allowances, through one cache per process. */
function resolvingClients({ config, storage, clock, random, clientDocumentTimeoutMs }: AppDeps) {
  // Plain http, and loopback addresses, only outside production (platform/safe-fetch.ts).
  const allowLoopbackHttp = config.env !== 'production';
  const options: FetchOptions = {
    allowPrivateAddresses: config.clientDocumentsFromPrivateNetworks,
    allowLoopbackHttp,
    userAgent: `Folio (+${config.baseUrl})`,
    ...(clientDocumentTimeoutMs === undefined ? {} : { timeoutMs: clientDocumentTimeoutMs }),
  };
  return withMetadataDocumentClients({
    applications: storage.applications,
    fetchDocument: (url) => fetchJsonDocument(url, options),
    cache: createDocumentCache<ClientMetadata>({ clock }),
    urlOptions: { allowLoopbackHttp },
    clock,
    random,
    fetchLimiter: new MemoryRateLimiter(),
  });
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, storage, clock, random, logger } = deps;
  const { baseUrl, allowSignup } = config;
  const issuer = baseUrl;
  const resources = protectedResources(baseUrl);
  const metrics = createMetrics(storage);
  const everyResponse = createEveryResponse();
  everyResponse.observe(accessLog(logger));
  everyResponse.observe((request, reply) => countResponse(metrics, request, reply));
  const app = Fastify(serverOptions(config, logger, everyResponse));
  if (deps.onRoute !== undefined) app.addHook('onRoute', deps.onRoute);

  await app.register(everyRoute, { everyResponse, overHttps: baseUrl.startsWith('https:'), proxiesUntrusted: config.trustProxy === false });
  await registerOpenApi(app, { issuer });

  const registry = observeGrants(createGrantRegistry({ ...storage, clock, random, resources }), (grantType) => metrics.countTokenIssued(grantType));
  const sessions = createSessions({
    sessions: storage.sessions, users: storage.users, clock, random, secureCookies: baseUrl.startsWith('https:'),
  });
  const rateLimit = {
    limiter: createRateLimiter(config.redisUrl, { logger, keyPrefix: deps.rateLimitKeyPrefix }),
    limit: config.rateLimitPerMinute, clock, onRejected: () => metrics.countRateLimited(),
  };

  // Every client look-up of the protocol endpoints resolves metadata-document clients too.
  const clientStorage = { ...storage, applications: resolvingClients(deps) };
  const registration = { mode: config.registration, token: config.registrationToken, limiter: rateLimit.limiter };
  await app.register(tokenEndpoints, { storage: clientStorage, registry, clock, random, issuer, registration, resources });
  const passwordCost = deps.passwordCost ?? PASSWORD_COST;
  await app.register(authorizationPages, { storage: clientStorage, sessions, clock, random, issuer, allowSignup, passwordCost, resources });
  await app.register(bearerApi, { storage, clock, baseUrl, rateLimit, resources });
  await app.register(webPages, { storage, sessions, clock, random, baseUrl });
  // bearerApi's rate limiter (bearerApi closes it): a tool call counts as one more API request.
  await app.register(mcp, { storage, clock, baseUrl, rateLimit, resources });
  await app.register(operations, { storage, metrics, metricsToken: config.metricsToken });

  await app.ready();
  return app;
}
