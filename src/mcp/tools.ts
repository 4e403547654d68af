// The MCP tools: read-only views of the token user's data, answering with the
// same records and rules as /api/v2 (src/http/routes/api-v2.ts). Nothing here
// knows HTTP or the MCP SDK; src/mcp/server.ts lists these with the SDK.
import * as z from 'zod/v4';
import { serializeOnePortfolio, serializePortfolioList } from '../api/portfolio-serializer.ts';
import { serializeMyUser } from '../api/user-serializer.ts';
import type { Portfolio } from '../domain/records.ts';
import type { PortfolioStore, UserStore } from '../storage/stores.ts';
import { myUserOutput, onePortfolioOutput, portfolioListOutput } from './output-schemas.ts';

export interface ToolDeps {
  portfolios: Pick<PortfolioStore, 'listPortfoliosOwnedBy' | 'findPortfolioOwnedBy'>;
  users: Pick<UserStore, 'findUserById'>;
  baseUrl: string;
}

/** An MCP CallToolResult (2025-11-25 server/tools): text for people and models, the record for programs. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

export interface FolioTool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  inputSchema: Input;
  outputSchema: z.ZodObject;
  run(input: z.infer<Input>, userId: number, deps: ToolDeps): Promise<ToolResult>;
}

// Record ids are 32-bit integer columns; a larger id names nothing (src/http/record-id.ts).
const MAX_RECORD_ID = 2_147_483_647;

/**
 * A summary for the reader, then the record as JSON text: the tools spec asks a
 * tool with structured content to repeat it serialized, for clients that show only text.
 */
function answer(summary: string, record: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: summary }, { type: 'text', text: JSON.stringify(record) }], structuredContent: record };
}

export function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

const describePortfolio = (portfolio: Portfolio) =>
  `${portfolio.name} (id ${portfolio.id}, ${portfolio.currencyCode}, ${portfolio.countryCode})`;

const listPortfolios: FolioTool = {
  name: 'list_portfolios',
  title: 'List portfolios',
  description: 'Lists every investment portfolio of the signed-in Folio user, with its currency, country and tax settings.',
  inputSchema: z.object({}),
  outputSchema: portfolioListOutput,
  async run(_input, userId, deps) {
    const portfolios = await deps.portfolios.listPortfoliosOwnedBy(userId);
    const summary = portfolios.length === 0
      ? 'You have no portfolios.'
      : [`You have ${portfolios.length} portfolio${portfolios.length === 1 ? '' : 's'}:`, ...portfolios.map((p) => `- ${describePortfolio(p)}`)].join('\n');
    return answer(summary, serializePortfolioList(portfolios, deps.baseUrl));
  },
};

const portfolioInput = z.object({
  id: z.number().int().min(1).max(MAX_RECORD_ID).describe('The portfolio id, as list_portfolios gives it'),
});

const getPortfolio: FolioTool<typeof portfolioInput> = {
  name: 'get_portfolio',
  title: 'Get a portfolio',
  description: 'Gets one portfolio of the signed-in Folio user by its id.',
  inputSchema: portfolioInput,
  outputSchema: onePortfolioOutput,
  async run({ id }, userId, deps) {
    // Someone else's portfolio is "not found", as on /api/v2: its existence is not ours to reveal.
    const portfolio = await deps.portfolios.findPortfolioOwnedBy(id, userId);
    if (portfolio === undefined) return toolError(`Portfolio ${id} was not found`);
    const summary = `Portfolio ${describePortfolio(portfolio)}: started ${portfolio.inceptionDate}, financial year ends ${portfolio.financialYearEnd}.`;
    return answer(summary, serializeOnePortfolio(portfolio, deps.baseUrl));
  },
};

const getMyUser: FolioTool = {
  name: 'get_my_user',
  title: 'Get my user',
  description: 'Gets the Folio user who connected this assistant: id, name and email address.',
  inputSchema: z.object({}),
  outputSchema: myUserOutput,
  async run(_input, userId, deps) {
    const user = await deps.users.findUserById(userId);
    if (user === undefined) return toolError('The user of this access token no longer exists');
    return answer(`You are signed in to Folio as ${user.name} <${user.email}> (user ${user.id}).`, serializeMyUser(user, deps.baseUrl));
  },
};

export const folioTools: readonly FolioTool[] = [listPortfolios, getPortfolio as unknown as FolioTool, getMyUser];
