import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `folio serve --port 0`, waits for the listening line, and hands back the address. */
async function startServe(env: Record<string, string>) {
  const directory = mkdtempSync(join(tmpdir(), 'folio-serve-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--port', '0'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', FOLIO_DATABASE_URL: join(directory, 'folio.db'), FOLIO_LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Folio is listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    exited.then(() => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return {
    address,
    output: () => stdout,
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      const status = await exited;
      rmSync(directory, { recursive: true, force: true });
      return status;
    },
  };
}

describe('folio serve', () => {
  test('seeds a new development database, serves, and exits 0 on SIGTERM', async () => {
    const server = await startServe({ FOLIO_ENV: 'development' });
    const health = await fetch(`${server.address}/healthz`);
    assert.equal(health.status, 200);
    assert.match(server.output(), /demo@folio\.test/);
    assert.match(server.output(), /folio-demo-password/);
    assert.equal(await server.stop(), 0);
  });

  test('never seeds demo data in production', async () => {
    const server = await startServe({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'http://127.0.0.1:3000' });
    assert.doesNotMatch(server.output(), /demo@folio\.test|folio_cs_/);
    assert.equal(await server.stop(), 0);
  });
});
