import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `folio serve --port 0`, waits for the listening line, and hands back the address. */
async function startServe(env: Record<string, string>) {
  const directory = mkdtempSync(join(tmpdir(), 'folio-serve-'));
  const databaseFile = join(directory, 'folio.db');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--port', '0'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', FOLIO_DATABASE_URL: databaseFile, FOLIO_LOG_LEVEL: 'silent', ...env },
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
    databaseFile,
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

  test('a first start that cannot listen names FOLIO_PORT and seeds nothing, so the next start still shows the demo', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const directory = mkdtempSync(join(tmpdir(), 'folio-serve-'));
    const databaseFile = join(directory, 'folio.db');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--port', String(port)], {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? '', FOLIO_DATABASE_URL: databaseFile, FOLIO_LOG_LEVEL: 'silent', FOLIO_ENV: 'development' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(status, 1);
      assert.match(stderr, new RegExp(`folio: error: cannot listen on port ${port} \\(FOLIO_PORT, PORT or --port\\)`));
      assert.doesNotMatch(stdout, /demo@folio\.test|folio_cs_/);
      const db = openSqlite(databaseFile).db;
      try {
        const users = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
        assert.equal(Number(users.count), 0);
      } finally {
        await db.destroy();
      }
    } finally {
      taken.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('never seeds demo data in production', async () => {
    const server = await startServe({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'http://127.0.0.1:3000' });
    assert.doesNotMatch(server.output(), /demo@folio\.test|folio_cs_/);
    assert.equal(await server.stop(), 0);
  });

  test('deletes dead tokens in the background every FOLIO_PURGE_INTERVAL_SECONDS', async () => {
    const server = await startServe({ FOLIO_ENV: 'development', FOLIO_PURGE_INTERVAL_SECONDS: '1' });
    const database = openSqlite(server.databaseFile);
    const { db } = database;
    const storage = createStorage(database);
    try {
      const now = Date.now();
      const { id: applicationId, owner_id: userId } = await db.selectFrom('applications').select(['id', 'owner_id']).where('owner_id', 'is not', null).executeTakeFirstOrThrow() as { id: number; owner_id: number };
      const { id: grantId } = await storage.grants.findOrCreateActiveGrant(userId, applicationId, ['read'], now);
      const dead = 'dead'.padEnd(64, '0');
      const live = 'live'.padEnd(64, '0');
      const token = (tokenHash: string, expiresAt: number) => ({ access: {
        tokenHash, grantId, applicationId, userId, scope: ['read'], createdAt: expiresAt - 3_600_000, expiresAt, revokedAt: null, originCodeHash: null, resource: null,
      } });
      // Dead for two hours: past the hour a dead credential is kept (src/maintenance.ts).
      assert.equal(await storage.tokens.saveTokens(token(dead, now - 2 * 3_600_000)), true);
      assert.equal(await storage.tokens.saveTokens(token(live, now + 3_600_000)), true);
      const hashes = async () => (await db.selectFrom('access_tokens').select('token_hash').execute()).map((row) => row.token_hash);
      const deadline = Date.now() + 10_000;
      while ((await hashes()).includes(dead) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const left = await hashes();
      assert.ok(!left.includes(dead), 'the dead token was not purged within 10 s');
      assert.ok(left.includes(live));
    } finally {
      await storage.close();
      assert.equal(await server.stop(), 0);
    }
  });

  test('a purge under way stops at the next batch on SIGTERM, and the server still exits 0', async () => {
    const server = await startServe({ FOLIO_ENV: 'development', FOLIO_PURGE_INTERVAL_SECONDS: '1', FOLIO_LOG_LEVEL: 'info' });
    const database = openSqlite(server.databaseFile);
    const { db } = database;
    try {
      const { id: applicationId, owner_id: userId } = await db.selectFrom('applications').select(['id', 'owner_id']).where('owner_id', 'is not', null).executeTakeFirstOrThrow() as { id: number; owner_id: number };
      const { id: grantId } = await createStorage(database).grants.findOrCreateActiveGrant(userId, applicationId, ['read'], Date.now());
      const expired = Date.now() - 2 * 3_600_000;
      // Far more than a paced purge deletes in the few seconds this test waits.
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 50000)
        insert into access_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at)
        select 'dead-' || i, ${grantId}, ${applicationId}, ${userId}, 'read', ${expired - 3_600_000}, ${expired} from n`.execute(db);
      const count = async () => Number((await db.selectFrom('access_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const deadline = Date.now() + 10_000;
      while (await count() >= 50_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(await count() < 50_000, 'the purge did not start within 10 s');
    } finally {
      await db.destroy();
    }
    const stopping = performance.now();
    assert.equal(await server.stop(), 0);
    assert.ok(performance.now() - stopping < 3000, `shutdown took ${Math.round(performance.now() - stopping)} ms`);
    assert.match(server.output(), /purge stopped by shutdown/);
    assert.doesNotMatch(server.output(), /purging expired credentials failed/);
  });
});
