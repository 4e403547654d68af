// The MCP tools at /mcp (MCP 2025-11-25 basic/lifecycle, server/tools): the
// three read-only tools with their schemas, and their text and structured
// results, which are the records /api/v2 answers with.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, bearer, createClient, createPortfolio, createTestApp, createUser, obtainTokens,
} from '../support/app.ts';
import { type ListedTool, type ToolCallResult, answerOf, obtainMcpToken, post, rpc } from '../support/mcp.ts';

const BASE = 'http://folio.test';

describe('MCP tools at /mcp', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let token: string;
  /** A token of the same application and user for /api/v2, which refuses one for /mcp. */
  let apiToken: string;

  const listTools = async () => (answerOf(await post(t, token, rpc('tools/list'))).result!.tools as ListedTool[]);
  const callTool = async (name: string, args: Record<string, unknown> = {}) =>
    answerOf(await post(t, token, rpc('tools/call', { name, arguments: args }))).result as unknown as ToolCallResult;

  beforeEach(async () => {
    t = await createTestApp({ FOLIO_RATE_LIMIT_PER_MINUTE: '20' });
    user = await createUser(t, 'Ada Investor');
    client = await createClient(t, user, { name: 'Claude Desktop' });
    token = await obtainMcpToken(t, client, user);
    apiToken = (await obtainTokens(t, client, user)).access_token;
  });

  afterEach(async () => {
    await t.close();
  });

  describe('lifecycle', () => {
    it('answers initialize with its tools capability and no session id (stateless)', async () => {
      const response = await post(t, token, rpc('initialize', {
        protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test-client', version: '1.0.0' },
      }));
      const { result } = answerOf(response);
      assert.equal(result!.protocolVersion, '2025-11-25');
      assert.deepEqual((result!.serverInfo as { name: string }).name, 'folio');
      assert.ok((result!.capabilities as Record<string, unknown>).tools !== undefined);
      assert.equal(response.headers['mcp-session-id'], undefined);
    });

    it('negotiates the 2025-06-18 protocol for clients of that revision', async () => {
      const { result } = answerOf(await post(t, token, rpc('initialize', {
        protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'older-client', version: '1.0.0' },
      })));
      assert.equal(result!.protocolVersion, '2025-06-18');
    });

    it('accepts a notification with 202 and no body', async () => {
      const response = await post(t, token, { jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(response.statusCode, 202);
      assert.equal(response.body, '');
    });
  });

  describe('tools/list', () => {
    it('lists three read-only tools, each with a title, description, input and output schema', async () => {
      const tools = await listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['get_my_user', 'get_portfolio', 'list_portfolios']);
      for (const tool of tools) {
        assert.ok(tool.title && tool.description, `${tool.name} has a title and a description`);
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object');
        assert.equal(tool.annotations?.readOnlyHint, true);
      }
      const getPortfolio = tools.find((tool) => tool.name === 'get_portfolio')!;
      assert.deepEqual(getPortfolio.inputSchema.required, ['id']);
      assert.equal((getPortfolio.inputSchema.properties as Record<string, { type: string }>).id!.type, 'integer');
    });

    it('describes the same portfolio fields as the /api/v2 response schema', async () => {
      const { portfolioListSchema } = await import('../../src/http/schemas/api.ts');
      const apiFields = Object.keys(portfolioListSchema.response[200].properties.portfolios.items.properties).sort();
      const listed = (await listTools()).find((tool) => tool.name === 'list_portfolios')!;
      const portfolios = (listed.outputSchema!.properties as Record<string, { items: { properties: Record<string, unknown> } }>).portfolios!;
      assert.deepEqual(Object.keys(portfolios.items.properties).sort(), apiFields);
    });
  });

  describe('tools/call', () => {
    const validator = new AjvJsonSchemaValidator();
    async function assertMatchesOutputSchema(name: string, result: ToolCallResult) {
      const tool = (await listTools()).find((listed) => listed.name === name)!;
      const check = validator.getValidator(tool.outputSchema as never)(result.structuredContent);
      assert.ok(check.valid, check.errorMessage);
    }

    it('list_portfolios: a summary, the JSON, and the same records as GET /api/v2/portfolios', async () => {
      await createPortfolio(t, user, 'Growth Fund');
      await createPortfolio(t, user, 'Income Fund');
      const result = await callTool('list_portfolios');
      assert.equal(result.isError, undefined);
      assert.match(result.content[0]!.text, /2 portfolios:\n- Growth Fund \(id \d+, AUD, AU\)\n- Income Fund/);
      assert.deepEqual(JSON.parse(result.content[1]!.text), result.structuredContent);
      const api = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios', headers: bearer(apiToken) });
      assert.deepEqual(result.structuredContent, api.json());
      await assertMatchesOutputSchema('list_portfolios', result);
    });

    it('list_portfolios: says so when there are none', async () => {
      const result = await callTool('list_portfolios');
      assert.equal(result.content[0]!.text, 'You have no portfolios.');
      assert.deepEqual(result.structuredContent, { portfolios: [], links: { self: `${BASE}/api/v2/portfolios` } });
    });

    it('get_portfolio: the record /api/v2/portfolios/:id answers, with links', async () => {
      const portfolio = await createPortfolio(t, user, 'Growth Fund');
      const result = await callTool('get_portfolio', { id: portfolio.id });
      assert.equal(result.isError, undefined);
      assert.match(result.content[0]!.text, new RegExp(`^Portfolio Growth Fund \\(id ${portfolio.id}, AUD, AU\\)`));
      const api = await t.app.inject({ method: 'GET', url: `/api/v2/portfolios/${portfolio.id}`, headers: bearer(apiToken) });
      assert.deepEqual(result.structuredContent, api.json());
      assert.equal((result.structuredContent!.portfolio as { links: { self: string } }).links.self, `${BASE}/api/v2/portfolios/${portfolio.id}`);
      await assertMatchesOutputSchema('get_portfolio', result);
    });

    it("get_portfolio: another user's portfolio is a tool error saying it was not found", async () => {
      const other = await createUser(t, 'Someone Else');
      const theirs = await createPortfolio(t, other, 'Private Fund');
      const result = await callTool('get_portfolio', { id: theirs.id });
      assert.deepEqual(result, { content: [{ type: 'text', text: `Portfolio ${theirs.id} was not found` }], isError: true });
    });

    it('get_portfolio: an id that cannot name a record is a tool error, not a protocol failure', async () => {
      for (const id of [0, -1, 1.5, 2 ** 40, '7']) {
        const result = await callTool('get_portfolio', { id });
        assert.equal(result.isError, true, `id ${id}`);
      }
      const missing = await callTool('get_portfolio', { id: 2_147_483_647 });
      assert.equal(missing.content[0]!.text, 'Portfolio 2147483647 was not found');
    });

    it('get_my_user: the token user, as GET /api/v2/my_user answers', async () => {
      const result = await callTool('get_my_user');
      assert.match(result.content[0]!.text, /^You are signed in to Folio as Ada Investor </);
      const api = await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(apiToken) });
      assert.deepEqual(result.structuredContent, api.json());
      await assertMatchesOutputSchema('get_my_user', result);
    });

    it('an unknown tool is an error, not a crash', async () => {
      const response = await post(t, token, rpc('tools/call', { name: 'delete_everything', arguments: {} }));
      const answer = answerOf(response);
      const failed = answer.error !== undefined || (answer.result as unknown as ToolCallResult).isError === true;
      assert.ok(failed, response.body);
    });
  });
});
