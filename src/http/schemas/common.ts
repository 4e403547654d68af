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
