// Requests to /oauth2/token and /oauth2/revoke, with the client authentication
// Folio expects: HTTP Basic for confidential applications, client_id alone for public ones.
import { FolioOAuthError, readErrorBody, retryAfterOf } from './errors.ts';
import type { TokenResponse } from './types.ts';

export interface ClientCredentials {
  baseUrl: string;
  clientId: string;
  /** Omit for public applications (they must not send one). */
  clientSecret?: string | undefined;
  fetch: typeof fetch;
}

/** RFC 6749 §2.3.1: each part is form-urlencoded before it is joined and base64-encoded. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

async function post(client: ClientCredentials, path: string, fields: Record<string, string>): Promise<Response> {
  const body = new URLSearchParams(fields);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (client.clientSecret === undefined) body.set('client_id', client.clientId);
  else headers.authorization = basicAuthorization(client.clientId, client.clientSecret);
  return client.fetch(`${client.baseUrl}${path}`, { method: 'POST', headers, body });
}

export async function requestTokens(client: ClientCredentials, fields: Record<string, string>): Promise<TokenResponse> {
  const response = await post(client, '/oauth2/token', fields);
  if (!response.ok) {
    const body = await readErrorBody(response);
    throw new FolioOAuthError(body.error ?? 'server_error', body.error_description, response.status, retryAfterOf(response));
  }
  const tokens = await response.json() as TokenResponse;
  if (typeof tokens.access_token !== 'string' || typeof tokens.expires_in !== 'number') {
    throw new FolioOAuthError('invalid_response', 'The token response has no access_token or expires_in', response.status);
  }
  return tokens;
}

/** RFC 7009: 200 whether or not the token was live. */
export async function revokeToken(client: ClientCredentials, token: string, hint?: 'access_token' | 'refresh_token'): Promise<void> {
  const response = await post(client, '/oauth2/revoke', hint === undefined ? { token } : { token, token_type_hint: hint });
  if (!response.ok) {
    const body = await readErrorBody(response);
    throw new FolioOAuthError(body.error ?? 'server_error', body.error_description, response.status, retryAfterOf(response));
  }
}
