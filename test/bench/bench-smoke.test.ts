// CI does not run the load benchmark, but runs it small so that it cannot rot:
// every scenario of `npm run bench`, a few hundred requests each, each answered 2xx.
// PostgreSQL joins when FOLIO_TEST_POSTGRES_URL names a server, as for the storage suites.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runBenchTool } from '../support/bench-tool.ts';
import { postgresServerUrl } from '../support/services.ts';

describe('npm run bench:smoke', () => {
  it('drives every scenario, baselines included, and gets only 2xx answers', { timeout: 180_000 }, async () => {
    const { status, output } = await runBenchTool(['bench/run.ts', '--smoke', ...(postgresServerUrl === undefined ? ['--no-postgres'] : [])]);
    assert.equal(status, 0, output);
    for (const scenario of ['bare Fastify GET', 'Fastify + the same two SQLite reads', 'oidc-provider client_credentials token', 'oidc-provider introspection', 'bare Fastify POST /oauth2/token',
      'bearer GET /api/v2/portfolios.json', 'during a purge of dead ones', 'tokens a second are issued', 'client_credentials', 'refresh_token', 'authorization_code', 'POST /mcp tools/call']) {
      assert.ok(output.includes(scenario), `${scenario} ran\n${output}`);
    }
    if (postgresServerUrl !== undefined) assert.match(output, /\| PostgreSQL \|/);
  });
});
