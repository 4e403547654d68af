// The production build is an esbuild bundle (scripts/build.ts), not the sources
// the other tests run through tsx. Bundling can break what only runs at run
// time (a lazily imported chunk, a package that reads files beside itself), so
// the built server is started here and driven through those paths.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { bundleServer, filesBeyondLatin1 } from '../../scripts/build.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { postgresServerUrl } from '../support/services.ts';

// Inside the project, so that the packages left external resolve from node_modules.
const OUTDIR = new URL(`../../node_modules/.cache/folio-bundle-test-${process.pid}/`, import.meta.url).pathname;

function describeBundledServer(backend: string, databaseEnv: () => Promise<Record<string, string>>, cleanup = async () => {}) {
  describe(`the bundled server on ${backend}`, () => {
    let server: ServerProcess;
    let client: { client_id: string; client_secret: string };

    before(async () => {
      const env = await databaseEnv();
      server = await startServerProcess((folio) => {
        folio('user', 'create', '--email', 'bundle@example.test', '--password', 'bundle-password', '--name', 'Bundle Owner');
        folio('portfolio', 'create', '--owner', 'bundle@example.test', '--name', 'Bundled Fund', '--currency', 'NZD', '--country', 'NZ');
        client = JSON.parse(folio('app', 'create', '--owner', 'bundle@example.test', '--name', 'Bundle App', '--redirect-uri', 'https://client.example/cb', '--json'));
      }, { entry: `${OUTDIR}main.js`, env });
    });

    after(async () => {
      server?.cleanup();
      await cleanup();
    });

    it('issues a token and serves the API with it', async () => {
      const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
      const issued = await fetch(`${server.baseUrl}/oauth2/token`, {
        method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'client_credentials' }),
      });
      assert.equal(issued.status, 200);
      const { access_token: token } = await issued.json() as { access_token: string };
      const list = await fetch(`${server.baseUrl}/api/v2/portfolios.json`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(list.status, 200);
      const { portfolios } = await list.json() as { portfolios: { name: string }[] };
      assert.deepEqual(portfolios.map((portfolio) => portfolio.name), ['Bundled Fund']);
    });

    it('serves the OpenAPI document, its Swagger UI with assets, metrics and the sign-in page', async () => {
      const openapi = await fetch(`${server.baseUrl}/api/v2/openapi.json`);
      assert.equal(openapi.status, 200);
      assert.equal((await openapi.json() as { openapi: string }).openapi, '3.1.0');
      const docs = await fetch(`${server.baseUrl}/api/v2/docs/`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger/i);
      const asset = await fetch(`${server.baseUrl}/api/v2/docs/static/swagger-ui.css`);
      assert.equal(asset.status, 200);
      const metrics = await fetch(`${server.baseUrl}/metrics`);
      assert.match(await metrics.text(), /folio_tokens_issued_total\{grant_type="client_credentials"\} 1/);
      const signIn = await fetch(`${server.baseUrl}/login`);
      assert.equal(signIn.status, 200);
    });

    it('answers the MCP tools at /mcp, whose SDK is bundled too', async () => {
      const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
      const issued = await fetch(`${server.baseUrl}/oauth2/token`, {
        method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${server.baseUrl}/mcp` }),
      });
      const { access_token: token } = await issued.json() as { access_token: string };
      const call = (method: string, params: Record<string, unknown>) => fetch(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const listed = await call('tools/list', {});
      assert.equal(listed.status, 200);
      const { result } = await listed.json() as { result: { tools: { name: string; outputSchema: { type: string } }[] } };
      assert.deepEqual(result.tools.map((tool) => [tool.name, tool.outputSchema.type]).sort(), [['get_my_user', 'object'], ['get_portfolio', 'object'], ['list_portfolios', 'object']]);
      const called = await (await call('tools/call', { name: 'list_portfolios', arguments: {} })).json() as { result: { structuredContent: { portfolios: { name: string }[] } } };
      assert.deepEqual(called.result.structuredContent.portfolios.map((portfolio) => portfolio.name), ['Bundled Fund']);
    });

    it('stops cleanly on SIGTERM', async () => {
      assert.equal(await server.stop(), 0);
    });
  });
}

before(async () => bundleServer(OUTDIR));
after(() => rmSync(OUTDIR, { recursive: true, force: true }));

describe('the bundle', () => {
  it('is Latin-1 text, which V8 holds at a byte a character', () => {
    assert.deepEqual([...filesBeyondLatin1(OUTDIR)], []);
  });
});

describeBundledServer('SQLite', async () => ({}));

if (postgresServerUrl !== undefined) {
  const database = new TemporaryPostgresDatabase(postgresServerUrl, 'folio_bundle');
  describeBundledServer('PostgreSQL', async () => ({ FOLIO_DATABASE_URL: await database.create() }), () => database.drop());
}
