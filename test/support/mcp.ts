// Speaking MCP's Streamable HTTP transport to a test app through inject():
// JSON-RPC messages in, parsed answers out.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { User } from '../../src/domain/records.ts';
import { type TestApp, type TestClient, bearer, obtainCode, tokenRequest } from './app.ts';

export const ACCEPT = 'application/json, text/event-stream';

export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

export interface ToolCallResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

let nextId = 1;
export const rpc = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: nextId++, method, params });

export function post(t: TestApp, token: string | null, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url: '/mcp',
    headers: { accept: ACCEPT, 'content-type': 'application/json', ...(token === null ? {} : bearer(token)), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function answerOf(response: LightMyRequestResponse): JsonRpcAnswer {
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return response.json() as JsonRpcAnswer;
}


/**
 * An access token for /mcp: the authorization request and the code exchange name
 * `{base}/mcp` as their RFC 8707 resource, as an MCP client does.
 */
export async function obtainMcpToken(t: TestApp, client: TestClient, user: User): Promise<string> {
  const resource = `${t.baseUrl}/mcp`;
  const { code, verifier } = await obtainCode(t, client, user, { resource });
  const fields: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, client_id: client.clientId, resource };
  if (client.application.confidential) fields.client_secret = client.clientSecret;
  if (client.application.pkceRequired) fields.code_verifier = verifier;
  const response = await tokenRequest(t, fields);
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { access_token: string }).access_token;
}
