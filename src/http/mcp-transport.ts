// Fastify in front of the MCP SDK's web-standard Streamable HTTP transport
// (2025-11-25 basic/transports). Fastify reads and limits the body and runs
// every hook (authentication, rate limit, security headers, access log); the
// transport answers the JSON-RPC exchange as a web Response, which goes out
// through the same reply, so nothing is hijacked and no hook is skipped.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMIT } from './body-parsers.ts';
import { decodeUtf8 } from './form-body.ts';

/**
 * The request headers the transport reads. Only these are handed over: the
 * Authorization header and cookies stay out of the SDK and its tool handlers.
 */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

/** JSON-RPC 2.0 §5.1: the body is not JSON. */
const PARSE_ERROR = -32700;
/** JSON-RPC 2.0 §5.1: not a valid request object. */
const INVALID_REQUEST = -32600;
/** The SDK's code for transport-level refusals (-32000, implementation-defined server error). */
const TRANSPORT_ERROR = -32000;

class MalformedJsonError extends Error {}

/**
 * A JSON-RPC error response with a null id (JSON-RPC 2.0 §5: the request's id is
 * unknown), as the transport spec allows for a refused HTTP request.
 */
export function sendJsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Bodies of the MCP endpoint: JSON is parsed here and handed to the transport as
 * it is (not flattened into parameters as token requests are); any other type is
 * read within the same limit and left for the transport to refuse with 415.
 */
export function acceptJsonRpcBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    let message: unknown;
    try {
      message = JSON.parse(decodeUtf8(body as Buffer));
    } catch {
      return done(new MalformedJsonError());
    }
    done(null, message);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, _body, done) => done(null, undefined));
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof MalformedJsonError) return sendJsonRpcError(reply, 400, PARSE_ERROR, 'Parse error: the body is not valid JSON');
    // Everything else is Folio's to render, as on every other route (errors.ts).
    throw error;
  });
}

/**
 * Spec: servers MUST validate Origin against DNS rebinding and answer 403 to an
 * Origin that is present and invalid. A browser page on another origin never
 * reaches the endpoint; clients that are not browsers send no Origin.
 */
export function refuseForeignOrigins(app: FastifyInstance, baseUrl: string): void {
  const allowed = new URL(baseUrl).origin;
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined || origin === allowed) return done();
    sendJsonRpcError(reply, 403, TRANSPORT_ERROR, 'Forbidden: requests from another origin are refused');
  });
}

/**
 * Answers one POST with a transport of its own (stateless mode: no session id,
 * so any instance can answer the next request) and JSON responses, not SSE.
 */
export async function answerWithTransport(request: FastifyRequest, reply: FastifyReply, createServer: () => McpServer, endpoint: string): Promise<FastifyReply> {
  // MCP 2025-06-18 removed JSON-RPC batches; one accepted would run many tool calls for one rate-limited request.
  if (Array.isArray(request.body)) return sendJsonRpcError(reply, 400, INVALID_REQUEST, 'Invalid Request: send one JSON-RPC message per request, not a batch');
  const server = createServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(webRequestOf(request, endpoint), { parsedBody: request.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => reply.header(name, value));
    // A JSON body, or none (202 for a notification).
    const body = await response.text();
    return reply.send(body === '' ? undefined : body);
  } finally {
    await server.close();
  }
}

function webRequestOf(request: FastifyRequest, endpoint: string): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(endpoint, { method: request.method, headers });
}
