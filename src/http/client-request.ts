// What a client presented at the token, revocation and introspection endpoints.
import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../oauth/errors.ts';
import type { ClientRequestInput } from '../oauth/token-endpoint.ts';
import { formDecoded, malformedQueryError, type Params, repeatedParamsOf } from './form-body.ts';

function formDecode(text: string): string {
  const decoded = formDecoded(text);
  if (decoded === undefined) throw new OAuthError('invalid_client', 'The Basic credentials are not valid form-urlencoded text');
  return decoded;
}

/**
 * A client_id that is a URL (a client ID metadata document's) sent without the
 * form-encoding §2.3.1 asks for, as requests-oauthlib and Ruby's oauth2 send it: the
 * colons of its scheme and port belong to it, and such clients have no secret to
 * hold a colon, so the id ends at the last one.
 */
const UNENCODED_URL = /^https?:\/\//i;

/**
 * RFC 6749 §2.3.1: client_id and client_secret are form-urlencoded before they
 * are joined with ":" and base64-encoded, so they are decoded after splitting.
 */
export function readBasicCredentials(header: string | undefined): ClientRequestInput['basic'] {
  if (header === undefined) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/=_-]*)[ ]*$/i.exec(header);
  if (match === null) {
    if (/^Basic\b/i.test(header)) throw new OAuthError('invalid_client', 'The Basic credentials are malformed');
    return undefined;
  }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = UNENCODED_URL.test(decoded) ? decoded.lastIndexOf(':') : decoded.indexOf(':');
  if (colon === -1) throw new OAuthError('invalid_client', 'The Basic credentials are malformed');
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (`${clientId}${clientSecret}`.includes('\u0000')) throw new OAuthError('invalid_client', 'The Basic credentials are malformed');
  return { clientId, clientSecret };
}

export function clientRequestInput(request: FastifyRequest): ClientRequestInput {
  return inputOf(request, (request.body ?? Object.create(null)) as Params);
}

/**
 * A revocation request whose body is empty is read from its query string: Ruby's
 * oauth2 gem revokes with POST ?token=… by default, as Doorkeeper accepts. Logged
 * URLs are redacted (platform/logger.ts), so the token reaches no log.
 */
export function revocationRequestInput(request: FastifyRequest): ClientRequestInput {
  const body = (request.body ?? Object.create(null)) as Params;
  if (Object.keys(body).length > 0) return inputOf(request, body);
  const malformed = malformedQueryError(request.query);
  if (malformed !== undefined) throw malformed;
  return inputOf(request, request.query as Params);
}

function inputOf(request: FastifyRequest, params: Params): ClientRequestInput {
  return {
    params,
    repeatedParams: repeatedParamsOf(params),
    basic: readBasicCredentials(request.headers.authorization),
    ip: request.ip,
  };
}
