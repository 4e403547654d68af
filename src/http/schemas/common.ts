// Schemas shared by the documented routes. Response schemas are also the
// allowlist fast-json-stringify applies: a field not named here never leaves.

export const errorBody = {
  type: 'object',
  description: 'RFC 6749 §5.2 / RFC 6750 §3 error',
  properties: {
    error: { type: 'string', description: 'Error code, e.g. invalid_request, invalid_client, invalid_grant, invalid_token, rate_limited' },
    error_description: { type: 'string', description: 'Human-readable detail; not for programs to parse' },
  },
  required: ['error', 'error_description'],
} as const;

/** 4xx and 5xx answers all have the error shape, whatever the route. */
export const errorResponses = {
  '4xx': { ...errorBody, description: 'Client error' },
  '5xx': { ...errorBody, description: 'Server error (server_error, temporarily_unavailable)' },
} as const;

// Response headers as @fastify/swagger documents them: a `headers` member of the
// status's schema, which the serializer ignores.
const retryAfter = { type: 'integer', description: 'Seconds to wait before trying again' } as const;

/** The RateLimit-* fields (draft-ietf-httpapi-ratelimit-headers) every bearer API answer carries. */
export const rateLimitHeaders = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed per application and user in each window' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the window ends' },
  'RateLimit-Policy': { type: 'string', description: 'The limit and its window in seconds, e.g. 360;w=60' },
} as const;

const unavailable = {
  503: { ...errorBody, description: 'temporarily_unavailable: the database cannot be reached', headers: { 'Retry-After': retryAfter } },
} as const;

const bearerChallengeHeader = {
  type: 'string',
  description: 'Bearer realm="folio", with error and error_description when a token was presented, scope when none was or it lacked one, '
    + 'and resource_metadata: the RFC 9728 metadata of the resource (its authorization server and scopes)',
} as const;

/** What the bearer-token endpoints answer besides 200 (RFC 6750 §3, DESIGN §2). */
export const bearerErrorResponses = {
  401: {
    ...errorBody,
    description: 'invalid_token: no token, or one that is malformed, expired, revoked or meant for another resource (RFC 6750 §3.1, RFC 8707)',
    headers: { 'WWW-Authenticate': bearerChallengeHeader },
  },
  403: {
    ...errorBody,
    description: 'insufficient_scope: the token lacks the scope this route needs (RFC 6750 §3.1)',
    headers: { 'WWW-Authenticate': bearerChallengeHeader },
  },
  429: {
    ...errorBody,
    description: 'rate_limited: too many requests for this application and user',
    headers: { 'Retry-After': retryAfter, ...rateLimitHeaders },
  },
  ...unavailable,
  ...errorResponses,
} as const;

/** What the client-authenticated endpoints (token, revocation, introspection) answer besides 200 (RFC 6749 §5.2). */
export const clientErrorResponses = {
  400: { ...errorBody, description: 'invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_scope' },
  401: {
    ...errorBody,
    description: 'invalid_client: unknown client, wrong secret, or no authentication',
    headers: { 'WWW-Authenticate': { type: 'string', description: 'Basic realm="folio", when the client tried HTTP Basic' } },
  },
  ...unavailable,
  ...errorResponses,
} as const;

export const bearerSecurity: Array<Record<string, string[]>> = [{ bearer: [] }, { oauth2: ['read'] }];

/** The three body types the token, revocation and introspection endpoints accept (DESIGN §2). */
export function formContent(schema: object) {
  return {
    content: {
      'application/x-www-form-urlencoded': { schema },
      'multipart/form-data': { schema },
      'application/json': { schema },
    },
  };
}
