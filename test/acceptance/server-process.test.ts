// The harness the black-box, browser and reliability tests start Folio with must
// hand back the server it started, never another process that answers on the
// port chosen for it (support/server-process.ts).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnListening } from '../support/server-process.ts';

describe('starting the server for a test', () => {
  it('refuses a port that another server answers on, where a health check there would pass', async () => {
    // Stands in for another test file's server that took the port first.
    const impostor = createServer((_request, response) => response.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const { port } = impostor.address() as { port: number };
    const directory = mkdtempSync(join(tmpdir(), 'folio-harness-'));
    try {
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
      const env = { ...process.env, FOLIO_DATABASE_URL: join(directory, 'folio.db'), FOLIO_PORT: String(port), FOLIO_BASE_URL: `http://127.0.0.1:${port}`, FOLIO_LOG_LEVEL: 'silent', FOLIO_ENV: 'test' };
      const outcome = await spawnListening(env).then(
        (child) => { child.kill('SIGKILL'); return 'it handed back a server'; },
        (error: Error) => error.message,
      );
      assert.match(outcome, /server exited with 1/);
    } finally {
      impostor.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
