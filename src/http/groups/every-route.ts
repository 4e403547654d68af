// What every route of every group shares, registered on the root instance
// (fastify-plugin lifts the encapsulation): the body parsers, the error
// rendering, the security headers, the refusals that come before any route, and
// the one place every response is seen (the access log and the metrics).
import fp from 'fastify-plugin';
import { registerBodyParsers } from '../body-parsers.ts';
import { refuseRequestsWhileClosing } from '../connection-errors.ts';
import { registerErrorHandling } from '../errors.ts';
import type { EveryResponse } from '../every-response.ts';
import { malformedQueryError } from '../form-body.ts';
import { warnOnceOfForwardedRequests } from '../forwarded-warning.ts';
import { registerSecurityHeaders } from '../security-headers.ts';

export interface EveryRouteOptions {
  everyResponse: EveryResponse;
  /** The base URL is https: responses carry Strict-Transport-Security. */
  overHttps: boolean;
  /** FOLIO_TRUST_PROXY is off: a request with X-Forwarded-For is worth a warning. */
  proxiesUntrusted: boolean;
}

export const everyRoute = fp<EveryRouteOptions>(async (app, { everyResponse, overHttps, proxiesUntrusted }) => {
  everyResponse.attach(app);
  if (proxiesUntrusted) warnOnceOfForwardedRequests(app);
  refuseRequestsWhileClosing(app);
  // request.query is parsed for every route, so every route refuses a malformed
  // one, as Fastify refuses a malformed path: 400 invalid_request (RFC 6749 §5.2).
  app.addHook('onRequest', (request, _reply, done) => done(malformedQueryError(request.query)));
  registerBodyParsers(app);
  registerErrorHandling(app);
  registerSecurityHeaders(app, overHttps);
}, { name: 'folio-every-route' });
