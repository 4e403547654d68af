// The one place an error becomes a response. JSON for the protocol and API
// (RFC 6749 §5.2, RFC 6750 §3), an HTML page for routes marked `html`.
import type { FastifyContextConfig, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, type OAuthErrorCode, toOAuthError } from '../oauth/errors.ts';
import { SessionEndedError, StorageUnavailableError } from '../storage/errors.ts';
import { sendToSignIn } from './page-guard.ts';
import { type BearerChallenge, presentsBearerCredentials } from './bearer-auth.ts';
import { renderErrorPage } from '../web/error-page.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Errors on this route are shown as an HTML page rather than JSON. */
    html?: boolean;
    /** Errors on this route are bearer errors and carry WWW-Authenticate (RFC 6750 §3) with this challenge. */
    bearer?: BearerChallenge;
  }
  interface FastifyReply {
    /** The OAuth error code the reply answered with, if it was an error (for metrics). */
    oauthErrorCode: OAuthErrorCode | undefined;
  }
}

/**
 * RFC 6750 §3 with RFC 9728 §5.1: the realm, the error when a token was presented
 * (§3.1: a request with no credentials gets none), the scope needed on a missing
 * token and on insufficient_scope (as MCP's authorization spec asks), and where the
 * resource's metadata is.
 */
function bearerChallengeHeader(error: OAuthError, challenge: BearerChallenge, presentedCredentials: boolean): string {
  const withoutCredentials = error.code === 'invalid_token' && !presentedCredentials;
  const params = ['realm="folio"'];
  if (!withoutCredentials) params.push(`error="${error.code}"`, `error_description="${error.description.replace(/"/g, "'")}"`);
  if (challenge.scope !== undefined && (withoutCredentials || error.code === 'insufficient_scope')) params.push(`scope="${challenge.scope}"`);
  if (challenge.resourceMetadata !== undefined) params.push(`resource_metadata="${challenge.resourceMetadata}"`);
  return `Bearer ${params.join(', ')}`;
}

/** Maps framework and storage failures onto OAuthError; the rest becomes server_error. */
export function classifyError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof StorageUnavailableError) {
    return new OAuthError('temporarily_unavailable', 'The service is temporarily unavailable; try again shortly', { cause: error });
  }
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation !== undefined) return new OAuthError('invalid_request', fastifyError.message ?? 'Invalid request', { cause: error });
  switch (fastifyError.statusCode) {
    case 413:
      return new OAuthError('payload_too_large', 'The request body is too large', { cause: error });
    case 415:
      return new OAuthError('invalid_request', 'Unsupported content type: send application/x-www-form-urlencoded, multipart/form-data or application/json', { cause: error });
    case undefined:
      return toOAuthError(error);
    default:
      if (fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
        return new OAuthError('invalid_request', 'The request is malformed', { cause: error });
      }
      return toOAuthError(error);
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: OAuthError): FastifyReply {
  reply.oauthErrorCode = error.code;
  reply.code(error.status);
  if (error.code === 'invalid_client' && /^basic\b/i.test(request.headers.authorization ?? '')) {
    // RFC 6749 §5.2: answer a failed Basic attempt with a Basic challenge.
    reply.header('www-authenticate', 'Basic realm="folio", charset="UTF-8"');
  }
  const challenge = request.routeOptions.config?.bearer;
  if (challenge !== undefined && (error.code === 'invalid_token' || error.code === 'insufficient_scope' || error.code === 'invalid_request')) {
    reply.header('www-authenticate', bearerChallengeHeader(error, challenge, presentsBearerCredentials(request.headers.authorization)));
  }
  if (error.code === 'temporarily_unavailable') reply.header('retry-after', '5');
  if (request.routeOptions.config?.html) {
    return reply.type('text/html; charset=utf-8').send(renderErrorPage(error));
  }
  return reply.type('application/json; charset=utf-8').send(error.toJSON());
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.decorateReply('oauthErrorCode', undefined);
  app.setErrorHandler((error, request, reply) => {
    // Signed out (in another tab, say) after the page's guard let the request in: the
    // write undid itself, and the page answers as its guard would have.
    if (error instanceof SessionEndedError && request.routeOptions.config?.html) return sendToSignIn(request, reply);
    const oauthError = classifyError(error);
    if (oauthError.status >= 500) request.log.error({ err: oauthError.cause ?? oauthError }, 'request failed');
    return sendError(request, reply, oauthError);
  });
  app.setNotFoundHandler((request, reply) => {
    return sendError(request, reply, new OAuthError('not_found', `No resource at ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`));
  });
}

/** 405 with Allow for the methods a path does not answer (instead of a misleading 404). */
export function refuseOtherMethods(app: FastifyInstance, url: string, allowed: readonly string[], config: Pick<FastifyContextConfig, 'html' | 'bearer'> = {}): void {
  const all = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
  const refused = all.filter((method) => !allowed.includes(method) && !(method === 'HEAD' && allowed.includes('GET')));
  app.route({
    method: [...refused],
    url,
    config,
    handler: async (request, reply) => {
      // RFC 9110 §10.2.1: Allow lists every method served, and HEAD is served wherever GET is.
      const served = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : allowed;
      reply.header('allow', served.join(', '));
      return sendError(request, reply, new OAuthError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(' or ')}`));
    },
  });
}
