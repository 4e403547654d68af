// The MCP endpoint, {base_url}/mcp: read-only tools over the portfolio API for AI
// assistants, on the Streamable HTTP transport in stateless mode. The same
// bearer tokens, scope, rate limit and error bodies as /api/v2: a tool call is
// one more API request of the token's application and user.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { createMcpServer } from '../../mcp/server.ts';
import type { ProtectedResources } from '../../oauth/resources.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Storage } from '../../storage/stores.ts';
import { bearerProtected } from '../bearer-auth.ts';
import { classifyError, refuseOtherMethods } from '../errors.ts';
import { acceptJsonRpcBodies, answerWithTransport, refuseForeignOrigins } from '../mcp-transport.ts';
import { type RateLimitDeps, countAgainstRateLimit } from '../rate-limit.ts';

export interface McpDeps {
  storage: Storage;
  clock: Clock;
  baseUrl: string;
  rateLimit: RateLimitDeps;
  resources: ProtectedResources;
}

export const mcp: FastifyPluginAsync<McpDeps> = async (app, { storage, clock, baseUrl, rateLimit, resources }) => {
  const endpoint = `${baseUrl}/mcp`;
  app.decorateRequest('accessToken', null);
  // Before authentication: a page on another origin learns nothing, not even whether its token is good.
  refuseForeignOrigins(app, baseUrl);
  // Every request, whatever its method, presents a token for /mcp with the read scope;
  // its refusals carry the challenge naming the resource metadata (errors.ts).
  const bearer = bearerProtected({ tokens: storage.tokens, clock }, { resource: resources.mcp, scope: 'read' });
  app.addHook('onRequest', bearer.onRequest);
  countAgainstRateLimit(app, rateLimit);
  acceptJsonRpcBodies(app);

  const describeFailure = (request: FastifyRequest) => (error: unknown) => {
    const failure = classifyError(error);
    if (failure.status >= 500) request.log.error({ err: failure.cause ?? failure }, 'MCP tool call failed');
    return failure.description;
  };
  const tools = { portfolios: storage.portfolios, users: storage.users, baseUrl };

  app.post('/mcp', { config: bearer.config }, async (request, reply) => {
    const userId = request.accessToken!.userId;
    return answerWithTransport(request, reply, () => createMcpServer({ ...tools, describeFailure: describeFailure(request) }, userId), endpoint);
  });
  // A stateless server offers no stream to GET and no session to DELETE: 405 (transports spec).
  refuseOtherMethods(app, '/mcp', ['POST'], bearer.config);
};
