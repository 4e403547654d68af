// Schema of POST /oauth2/register (RFC 7591 §2, §3). The request schema documents
// what the core validates (oauth/client-metadata.ts); the response schema is the
// allowlist of what leaves the server.
import { errorBody, errorResponses } from './common.ts';

const stringList = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;

const registrationRequest = {
  type: 'object',
  additionalProperties: true,
  description: 'RFC 7591 §2 client metadata; unknown fields are ignored',
  properties: {
    redirect_uris: stringList('Required. 1 to 10: https, loopback http (any port, RFC 8252 §7.3) or a private-use scheme'),
    client_name: { type: 'string', description: 'Shown to people on the consent page; defaults to the host of the first redirect URI' },
    token_endpoint_auth_method: { type: 'string', description: 'none (a public client, PKCE), client_secret_basic (the default) or client_secret_post' },
    grant_types: stringList('authorization_code, optionally refresh_token'),
    response_types: stringList('code'),
    scope: { type: 'string', description: 'Space-separated; only "read" today' },
    client_uri: { type: 'string', description: 'https URL, informational' },
    logo_uri: { type: 'string', description: 'https URL, informational' },
  },
} as const;

const registrationResponse = {
  type: 'object',
  description: 'RFC 7591 §3.2.1; also Cache-Control: no-store',
  properties: {
    client_id: { type: 'string' },
    client_id_issued_at: { type: 'integer', description: 'Unix seconds' },
    client_secret: { type: 'string', description: 'Only for client_secret_basic and client_secret_post; shown this once' },
    client_secret_expires_at: { type: 'integer', description: '0: the secret does not expire' },
    client_name: { type: 'string' },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_method: { type: 'string' },
    grant_types: { type: 'array', items: { type: 'string' } },
    response_types: { type: 'array', items: { type: 'string' } },
    scope: { type: 'string' },
  },
  required: ['client_id', 'client_id_issued_at', 'client_name', 'redirect_uris', 'token_endpoint_auth_method', 'grant_types', 'response_types', 'scope'],
} as const;

export const registrationSchema = {
  tags: ['OAuth'],
  summary: 'Dynamic Client Registration (RFC 7591)',
  description: 'A client registers itself. Open, guarded by an initial access token (Authorization: Bearer), or off, as the server is configured. '
    + 'Every self-registered client must use PKCE (S256); one that is public gets no secret.',
  security: [{ bearer: [] }, {}],
  body: { content: { 'application/json': { schema: registrationRequest } } },
  response: {
    201: registrationResponse,
    400: { ...errorBody, description: 'invalid_redirect_uri or invalid_client_metadata (RFC 7591 §3.2.2); nothing is stored' },
    401: { ...errorBody, description: 'invalid_token: the initial access token is missing or wrong' },
    429: { ...errorBody, description: 'rate_limited: too many registrations from this address', headers: { 'Retry-After': { type: 'integer' } } },
    ...errorResponses,
  },
} as const;
