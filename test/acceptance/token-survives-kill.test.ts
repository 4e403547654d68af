// Durability (README, Durability): a token the client has been given is in the
// database even if the server dies the next instant, with no chance to shut down.
import { type ChildProcess, execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, spawnListening } from '../support/server-process.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe('an issued token survives kill -9 of the server', () => {
  const directory = mkdtempSync(join(tmpdir(), 'folio-kill-'));
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers the API with a client_credentials token issued just before SIGKILL', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = { ...process.env, FOLIO_DATABASE_URL: join(directory, 'folio.db'), FOLIO_PORT: String(port), FOLIO_BASE_URL: baseUrl, FOLIO_LOG_LEVEL: 'warn', FOLIO_ENV: 'test' };
    const folio = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env, encoding: 'utf8' });
    folio('user', 'create', '--email', 'owner@folio.test', '--password', 'correct-horse-battery');
    const app = JSON.parse(folio('app', 'create', '--owner', 'owner@folio.test', '--name', 'Kill test', '--redirect-uri', 'urn:ietf:wg:oauth:2.0:oob', '--json')) as { client_id: string; client_secret: string };

    const first = await spawnListening(env);
    children.push(first);
    const response = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    assert.equal(response.status, 200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    const killed = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await killed;

    const second = await spawnListening(env);
    children.push(second);
    const api = await fetch(`${baseUrl}/api/v2/portfolios.json`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(api.status, 200);
    second.kill('SIGTERM');
  });
});
