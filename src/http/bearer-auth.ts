// RFC 6750 §2.1: the access token travels in the Authorization header and nowhere else.
import type { FastifyRequest } from 'fastify';
import { type BearerDeps, requireScope, verifyAccessToken } from '../oauth/bearer.ts';
import { OAuthError } from '../oauth/errors.ts';
import type { AccessToken } from '../domain/records.ts';
import type { Params } from './form-body.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified bearer token, on bearer API routes once authentication has passed. */
    accessToken: AccessToken | null;
  }
}

const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/**
 * RFC 6750 §3.1: a request in another scheme (Basic, say) carries no bearer
 * credentials at all, and is answered like one without an Authorization header.
 */
export function presentsBearerCredentials(header: string | undefined): boolean {
  return header !== undefined && /^bearer\b/i.test(header);
}

/** `scope` null: any live token will do. */
export function bearerAuthentication(deps: BearerDeps, scope: string | null) {
  return async function authenticateBearer(request: FastifyRequest): Promise<void> {
    // A token in a URL ends up in logs and Referer headers (RFC 6750 §5.3); refuse it outright.
    if ('access_token' in (request.query as Params)) {
      throw new OAuthError('invalid_request', 'Send the access token in the Authorization header, not the query string');
    }
    const header = request.headers.authorization;
    if (!presentsBearerCredentials(header)) throw new OAuthError('invalid_token', 'An access token is required in the Authorization header');
    const match = BEARER.exec(header!);
    if (match === null) throw new OAuthError('invalid_request', "The Authorization header must be 'Bearer <access token>'");
    const token = await verifyAccessToken(match[1]!, deps);
    if (scope !== null) requireScope(token, scope);
    request.accessToken = token;
  };
}
