// One MCP server per request, for one user: the stateless Streamable HTTP mode,
// where any instance behind a load balancer answers any request (2025-11-25
// basic/transports, session management is optional). The SDK answers the
// protocol (initialize, tools/list, tools/call, JSON-RPC errors); Folio
// supplies the tools.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { type FolioTool, type ToolDeps, type ToolResult, folioTools, toolError } from './tools.ts';

export interface McpServerDeps extends ToolDeps {
  /**
   * The public text of a tool's unexpected failure, after logging it. The SDK
   * would otherwise send the error's own message, which may name internals.
   */
  describeFailure(error: unknown): string;
}

const SERVER_INFO = { name: 'folio', title: 'Folio portfolios', version: '2' };

const INSTRUCTIONS = 'Read-only access to the investment portfolios of the Folio user who connected this assistant. '
  + 'Call list_portfolios to find portfolio ids, then get_portfolio for one of them.';

/**
 * Each server would otherwise build its own Ajv, which compiles its meta-schemas
 * first: most of a request's time. Folio asks clients for nothing, so it never
 * validates anything with it; one is shared.
 */
let jsonSchemaValidator: AjvJsonSchemaValidator | undefined;

export function createMcpServer(deps: McpServerDeps, userId: number): McpServer {
  jsonSchemaValidator ??= new AjvJsonSchemaValidator();
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, jsonSchemaValidator });
  for (const tool of folioTools) registerTool(server, tool, deps, userId);
  return server;
}

function registerTool(server: McpServer, tool: FolioTool, deps: McpServerDeps, userId: number): void {
  const config = {
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
  server.registerTool(tool.name, config, async (input: unknown): Promise<ToolResult> => {
    try {
      return await tool.run(input as never, userId, deps);
    } catch (error) {
      return toolError(deps.describeFailure(error));
    }
  });
}
