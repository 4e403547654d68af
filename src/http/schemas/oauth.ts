// Schemas of the token, revocation, introspection and token info endpoints.
// Request schemas describe; they never decide: no field is `required` and no
// value is enumerated, so the protocol core still answers invalid_request,
// invalid_client or unsupported_grant_type in RFC order, and unknown
// parameters stay allowed (RFC 6749 §3.2: they are ignored).
import { bearerErrorResponses, bearerSecurity, clientErrorResponses, formContent, rateLimitHeaders } from './common.ts';

const clientFields = {
  client_id: { type: 'string', description: 'The application\'s client_id (or use HTTP Basic)' },
  client_secret: { type: 'string', description: 'Confidential applications only (client_secret_post); public ones omit it' },
} as const;

const tokenRequest = {
  type: 'object',
  additionalProperties: true,
  properties: {
    grant_type: { type: 'string', description: 'authorization_code, client_credentials or refresh_token', examples: ['authorization_code'] },
    code: { type: 'string', description: 'authorization_code: the code from the redirect' },
    redirect_uri: { type: 'string', description: 'authorization_code: the redirect URI of the authorization request' },
    code_verifier: { type: 'string', description: 'authorization_code: the PKCE verifier (RFC 7636, S256)' },
    refresh_token: { type: 'string', description: 'refresh_token: the current refresh token; it is rotated' },
    scope: { type: 'string', description: 'Optional; space-separated (only "read" today)' },
    resource: {
      type: 'string',
      description: 'Optional (RFC 8707): the resource the access token is for, {base_url}/api/v2 or {base_url}/mcp. For a code or refresh token, the one it was granted for (a token granted without resource may be narrowed to {base_url}/api/v2); at most once',
    },
    ...clientFields,
  },
} as const;

const tokenResponse = {
  type: 'object',
  description: 'RFC 6749 §5.1 token response; also Cache-Control: no-store',
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string', description: 'Always "bearer" (compare case-insensitively, RFC 6749 §5.1)' },
    expires_in: { type: 'integer', description: 'Seconds; 1800' },
    refresh_token: { type: 'string', description: 'Absent for client_credentials' },
    created_at: { type: 'integer', description: 'Issue time, Unix seconds' },
    scope: { type: 'string', description: 'Only when the granted scope differs from the requested one' },
  },
  required: ['access_token', 'token_type', 'expires_in', 'created_at'],
} as const;

/**
 * Client authentication as OpenAPI says it (3.1 §4.8.12.1 ignores an
 * Authorization header parameter): HTTP Basic (client_secret_basic), or none
 * here, the credentials then going in the body (client_secret_post, or
 * client_id alone for a public application).
 */
const clientAuthentication: { [scheme: string]: string[] }[] = [{ clientBasic: [] }, {}];

export const tokenSchema = {
  tags: ['OAuth'],
  summary: 'Token endpoint (RFC 6749 §3.2)',
  description: 'Exchanges a code, client credentials or a refresh token for tokens. Client authentication: HTTP Basic, client_secret in the body, or client_id alone for public applications.',
  security: clientAuthentication,
  body: formContent(tokenRequest),
  response: { 200: tokenResponse, ...clientErrorResponses },
} as const;

export const revocationSchema = {
  tags: ['OAuth'],
  summary: 'Token revocation (RFC 7009)',
  security: clientAuthentication,
  body: formContent({
    type: 'object',
    additionalProperties: true,
    properties: {
      token: { type: 'string', description: 'An access or refresh token of this application' },
      token_type_hint: { type: 'string', description: 'access_token or refresh_token (optional)' },
      ...clientFields,
    },
  }),
  response: {
    200: {
      description: 'Revoked, or not a live token (RFC 7009 §2.2): an empty JSON object. A live token of another application is refused: 400 unauthorized_client',
      type: 'object', additionalProperties: false, properties: {},
    },
    ...clientErrorResponses,
  },
} as const;

export const introspectionSchema = {
  tags: ['OAuth'],
  summary: 'Token introspection (RFC 7662), confidential applications about their own tokens',
  security: clientAuthentication,
  body: formContent({
    type: 'object',
    additionalProperties: true,
    properties: { token: { type: 'string' }, token_type_hint: { type: 'string' }, ...clientFields },
  }),
  response: {
    200: {
      type: 'object',
      properties: {
        active: { type: 'boolean' },
        scope: { type: 'string' },
        client_id: { type: 'string' },
        token_type: { type: 'string', description: 'bearer, for an access token (RFC 7662 §2.2); absent for a refresh token' },
        token_use: { type: 'string', enum: ['access_token', 'refresh_token'], description: 'Which kind of token it is' },
        exp: { type: 'integer' },
        iat: { type: 'integer' },
        sub: { type: 'string' },
        iss: { type: 'string' },
        aud: { type: 'string', description: 'The resource (RFC 8707) the token is for; absent for a token issued without resource' },
      },
      required: ['active'],
    },
    ...clientErrorResponses,
  },
} as const;

export const tokenInfoSchema = {
  tags: ['OAuth'],
  summary: 'What the bearer token is (Doorkeeper style)',
  security: bearerSecurity,
  response: {
    200: {
      type: 'object',
      properties: {
        resource_owner_id: { type: 'integer' },
        scope: { type: 'array', items: { type: 'string' } },
        expires_in: { type: 'integer', description: 'Seconds left' },
        application: { type: 'object', properties: { uid: { type: ['string', 'null'] } }, required: ['uid'] },
        created_at: { type: 'integer' },
      },
      required: ['resource_owner_id', 'scope', 'expires_in', 'application', 'created_at'],
      headers: rateLimitHeaders,
    },
    ...bearerErrorResponses,
  },
} as const;
