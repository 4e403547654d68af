// The official MCP SDK's client drives Folio's /mcp over real HTTP with a bearer
// token it was given (the OAuth discovery and sign-in a real assistant does
// belong to the end-to-end test of issue 52).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { obtainMcpToken } from '../support/mcp.ts';
import { type LiveFolio, startFolio } from './support.ts';

describe('interop: the MCP SDK client on /mcp', () => {
  let folio: LiveFolio;
  let accessToken: string;

  before(async () => {
    folio = await startFolio();
    accessToken = await obtainMcpToken(folio.t, folio.confidential, folio.user);
  });
  after(async () => folio.t.close());

  async function connect(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', folio.issuer), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'folio-interop-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('initializes, lists the tools and calls list_portfolios, checking the result against its output schema', async () => {
    const client = await connect(accessToken);
    try {
      assert.equal(client.getServerVersion()?.name, 'folio');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['get_my_user', 'get_portfolio', 'list_portfolios']);
      // The client validates structuredContent against the listed outputSchema and throws if it does not match.
      const result = await client.callTool({ name: 'list_portfolios', arguments: {} });
      assert.equal(result.isError, undefined);
      const { portfolios } = result.structuredContent as { portfolios: { id: number; name: string; links: { self: string } }[] };
      assert.deepEqual(portfolios.map((portfolio) => portfolio.name), ['Interop Fund']);
      assert.equal(portfolios[0]!.links.self, `${folio.issuer}/api/v2/portfolios/${portfolios[0]!.id}`);

      const one = await client.callTool({ name: 'get_portfolio', arguments: { id: portfolios[0]!.id } });
      assert.equal((one.structuredContent as { portfolio: { name: string } }).portfolio.name, 'Interop Fund');
    } finally {
      await client.close();
    }
  });

  it('is refused with 401 when its token is not good', async () => {
    await assert.rejects(connect(`${accessToken.slice(0, -4)}AAAA`), (error: unknown) => {
      assert.ok(error instanceof StreamableHTTPError, String(error));
      assert.equal(error.code, 401);
      assert.match(error.message, /invalid_token/);
      return true;
    });
  });
});
