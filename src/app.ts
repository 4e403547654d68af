// The only place that wires things together: stores, clock and randomness go
// in; a Fastify instance with every route comes out. The process entry
// (server.ts) listens; tests call inject().
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { AppDeps } from './app-deps.ts';
import { registerAccessLog } from './http/access-log.ts';
import { createEveryResponse } from './http/every-response.ts';
import { BODY_LIMIT, registerBodyParsers } from './http/body-parsers.ts';
import { classifyError, registerErrorHandling, sendError } from './http/errors.ts';
import { createLoginThrottle } from './http/login-throttle.ts';
import { createMetrics, registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { deferredChildLogger } from './http/request-logger.ts';
import { registerActivity } from './http/routes/activity.ts';
import { registerApiDocs } from './http/routes/api-docs.ts';
import { registerApiV2 } from './http/routes/api-v2.ts';
import { registerApplicationSettings } from './http/routes/application-settings.ts';
import { registerAuthorize } from './http/routes/authorize.ts';
import { registerConnections } from './http/routes/connections.ts';
import { registerDeveloperGuide } from './http/routes/developers.ts';
import { registerHealth } from './http/routes/health.ts';
import { registerHome } from './http/routes/home.ts';
import { registerMetadata } from './http/routes/metadata.ts';
import { registerOAuthEndpoints } from './http/routes/oauth-endpoints.ts';
import { registerPortfolioPages } from './http/routes/portfolios.ts';
import { registerSignIn } from './http/routes/sign-in.ts';
import { registerSignUp } from './http/routes/sign-up.ts';
import { registerTokenInfo } from './http/routes/token-info.ts';
import { registerSecurityHeaders, setSecurityHeaders } from './http/security-headers.ts';
import { answerMalformedHttp, refuseRequestsWhileClosing } from './http/connection-errors.ts';
import { createSessions, registerSessionCookies } from './http/sessions.ts';
import { malformedQueryError, parseQueryString } from './http/form-body.ts';
import { createGrantRegistry, observeGrants } from './oauth/grants/registry.ts';
import { oauthPaths } from './oauth/metadata.ts';
import { createRateLimiter } from './platform/rate-limit/create.ts';

export type { AppDeps } from './app-deps.ts';

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, storage, clock, random } = deps;
  const everyResponse = createEveryResponse();
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Behind a load balancer the operator names it (FOLIO_TRUST_PROXY); we do not guess.
    trustProxy: typeof config.trustProxy === 'number'
      ? ((hops: number) => (_address: string, hop: number) => hop < hops)(config.trustProxy)
      : config.trustProxy,
    // Fastify's own 503 and client-error bodies are not RFC 6749 §5.2's: ours (connection-errors.ts).
    return503OnClosing: false,
    // Checking each route schema against JSON Schema's meta-schema compiles that
    // meta-schema first: a tenth of a production start (docs/performance.md). The
    // schemas are code, so every test and development start checks them instead.
    ajv: { customOptions: { validateSchema: config.env !== 'production' } },
    clientErrorHandler: answerMalformedHttp,
    // Fastify's own two request lines are replaced by one access-log line (http/access-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's logger is made when it first logs (http/request-logger.ts).
    childLoggerFactory: deferredChildLogger,
    forceCloseConnections: 'idle',
    // request.query is read with the rules of a form body (form-body.ts), not leniently.
    routerOptions: { querystringParser: parseQueryString },
    // A path with bad percent-encoding or an overlong parameter fails before any
    // route (and before any hook); without this Fastify answers in its own shape
    // instead of RFC 6749 §5.2.
    frameworkErrors: (error, request, reply) => {
      everyResponse.observeUnrouted(request, reply);
      setSecurityHeaders(reply);
      return sendError(request, reply, classifyError(error));
    },
  });

  if (deps.onRoute !== undefined) app.addHook('onRoute', deps.onRoute);
  everyResponse.attach(app);
  refuseRequestsWhileClosing(app);
  // request.query is parsed for every route, so every route refuses a malformed
  // one, as Fastify refuses a malformed path: 400 invalid_request (RFC 6749 §5.2).
  app.addHook('onRequest', (request, _reply, done) => done(malformedQueryError(request.query)));
  registerAccessLog(app, everyResponse, deps.logger);
  registerBodyParsers(app);
  registerErrorHandling(app);
  registerSecurityHeaders(app);
  await registerSessionCookies(app);
  const metrics = createMetrics(deps.storage);
  registerMetrics(app, metrics, everyResponse);
  const limiter = createRateLimiter(config.redisUrl, { logger: deps.logger, keyPrefix: deps.rateLimitKeyPrefix });
  registerRateLimit(app, { limiter, limit: config.rateLimitPerMinute, clock, onRejected: () => metrics.countRateLimited() });
  await registerOpenApi(app, { issuer: config.baseUrl });

  const issuer = config.baseUrl;
  const registry = observeGrants(createGrantRegistry({ ...storage, clock, random }), (grantType) => metrics.countTokenIssued(grantType));
  const sessions = createSessions({
    sessions: storage.sessions, users: storage.users, clock, random,
    secureCookies: config.baseUrl.startsWith('https:'),
  });
  const bearer = { tokens: storage.tokens, clock };

  registerHealth(app, { storage });
  registerHome(app, { sessions });
  registerMetadata(app, { issuer, registry });
  registerOAuthEndpoints(app, { ...storage, registry, clock, issuer });
  const throttle = createLoginThrottle({ store: storage.loginThrottle, clock });
  registerSignIn(app, { ...storage, sessions, throttle, clock, allowSignup: config.allowSignup });
  registerSignUp(app, { storage, sessions, throttle, clock, allowSignup: config.allowSignup });
  registerPortfolioPages(app, { portfolios: storage.portfolios, sessions, clock });
  registerAuthorize(app, {
    ...storage, sessions, clock, random, issuer,
    nativeCodePage: issuer + oauthPaths.nativeCode,
  });
  registerTokenInfo(app, { ...bearer, applications: storage.applications });
  registerApiV2(app, { ...bearer, portfolios: storage.portfolios, users: storage.users, baseUrl: config.baseUrl });
  registerApplicationSettings(app, { storage, sessions, clock, random });
  registerConnections(app, { storage, sessions, clock });
  registerActivity(app, { storage, sessions });
  registerDeveloperGuide(app, { baseUrl: config.baseUrl });
  registerApiDocs(app);

  await app.ready();
  return app;
}
