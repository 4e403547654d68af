// In CI a suite that needs PostgreSQL or Redis fails when the server is absent,
// where a developer's run skips it (test/support/services.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

function importServices(env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', '-e', "await import('./test/support/services.ts')"], {
    env: { ...process.env, FOLIO_TEST_POSTGRES_URL: '', FOLIO_TEST_REDIS_URL: '', CI: '', ...env }, encoding: 'utf8',
  });
}

describe('the servers the suites need', () => {
  it('are optional outside CI', () => {
    assert.equal(importServices({}).status, 0);
  });

  it('are required with CI=true: each absent one fails the suites that import it, naming its variable', () => {
    const withoutBoth = importServices({ CI: 'true' });
    assert.notEqual(withoutBoth.status, 0);
    assert.match(withoutBoth.stderr, /FOLIO_TEST_POSTGRES_URL is not set and CI=true/);
    const withoutRedis = importServices({ CI: 'true', FOLIO_TEST_POSTGRES_URL: 'postgres://127.0.0.1:1/none' });
    assert.notEqual(withoutRedis.status, 0);
    assert.match(withoutRedis.stderr, /FOLIO_TEST_REDIS_URL is not set and CI=true/);
    assert.equal(importServices({ CI: 'true', FOLIO_TEST_POSTGRES_URL: 'postgres://127.0.0.1:1/none', FOLIO_TEST_REDIS_URL: 'redis://127.0.0.1:1' }).status, 0);
  });
});
