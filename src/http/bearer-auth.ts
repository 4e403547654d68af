// RFC 6750 §2.1: the access token travels in the Authorization header and nowhere else.
import type { FastifyRequest } from 'fastify';
import { type BearerDeps, requireAudience, requireScope, verifyAccessToken } from '../oauth/bearer.ts';
import { OAuthError } from '../oauth/errors.ts';
import type { ProtectedResource } from '../oauth/resources.ts';
import type { AccessToken } from '../domain/records.ts';
import type { Params } from './form-body.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified bearer token, on bearer API routes once authentication has passed. */
    accessToken: AccessToken | null;
  }
}

/** What a bearer route serves: the resource whose tokens it accepts, and the scope it needs (null: any). */
export interface BearerRequirement {
  resource: ProtectedResource;
  scope: string | null;
}

/**
 * What a bearer route's 401 and 403 answers name in WWW-Authenticate (errors.ts
 * renders it); both members are absent on a bearer route that is no OAuth resource (/metrics).
 */
export interface BearerChallenge {
  /** RFC 9728 §5.1: where the resource's metadata is, so a client can find its authorization server. */
  resourceMetadata?: string;
  /** RFC 6750 §3: the scope needed, named on a missing-token 401 and on insufficient_scope. */
  scope?: string;
}

const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/**
 * RFC 6750 §3.1: a request in another scheme (Basic, say) carries no bearer
 * credentials at all, and is answered like one without an Authorization header.
 */
export function presentsBearerCredentials(header: string | undefined): boolean {
  return header !== undefined && /^bearer\b/i.test(header);
}

/** The onRequest hook that lets through only a live token for `required.resource` with `required.scope`. */
export function bearerAuthentication(deps: BearerDeps, required: BearerRequirement) {
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
    requireAudience(token, required.resource);
    if (required.scope !== null) requireScope(token, required.scope);
    request.accessToken = token;
  };
}

/** The challenge errors.ts renders on this route's 401 and 403 answers (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(required: BearerRequirement): BearerChallenge {
  return { resourceMetadata: required.resource.metadataUrl, scope: required.scope ?? required.resource.scopes.join(' ') };
}

/** A bearer route's options: its authentication hook and the challenge its errors carry. */
export function bearerProtected(deps: BearerDeps, required: BearerRequirement) {
  return { config: { bearer: bearerChallenge(required) }, onRequest: bearerAuthentication(deps, required) };
}
