// The Fastify server options Folio depends on, each for the reason beside it.
import { type FastifyBaseLogger, type FastifyServerOptions, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { BODY_LIMIT } from './body-parsers.ts';
import { answerMalformedHttp } from './connection-errors.ts';
import { classifyError, sendError } from './errors.ts';
import type { EveryResponse } from './every-response.ts';
import { parseQueryString } from './form-body.ts';
import { setSecurityHeaders } from './security-headers.ts';

export function serverOptions(config: Config, logger: Logger, everyResponse: EveryResponse): FastifyServerOptions {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Behind a load balancer the operator names it (FOLIO_TRUST_PROXY); we do not guess.
    trustProxy: typeof config.trustProxy === 'number'
      ? ((hops: number) => (_address: string, hop: number) => hop < hops)(config.trustProxy)
      : config.trustProxy,
    // request.query is read with the rules of a form body (form-body.ts), not leniently.
    routerOptions: { querystringParser: parseQueryString },
    // Fastify's own 503 and client-error bodies are not RFC 6749 §5.2's: ours (connection-errors.ts).
    return503OnClosing: false,
    clientErrorHandler: answerMalformedHttp,
    // Route schemas are code, checked against JSON Schema's meta-schema by every
    // test and development start; production skips compiling the meta-schema.
    ajv: { customOptions: { validateSchema: config.env !== 'production' } },
    // Fastify's own two request lines are replaced by one access-log line (access-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // A path with bad percent-encoding or an overlong parameter fails before any
    // route and any hook; without this Fastify answers in its own shape instead
    // of RFC 6749 §5.2's, and neither the access log nor the metrics see it.
    frameworkErrors: (error, request, reply) => {
      everyResponse.observeUnrouted(request, reply);
      setSecurityHeaders(reply, config.baseUrl.startsWith('https:'));
      return sendError(request, reply, classifyError(error));
    },
  };
}
