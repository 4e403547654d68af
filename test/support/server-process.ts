// The real server as a child process on a free port, with a throwaway SQLite
// file: what the black-box and browser tests drive over real HTTP.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Runs a CLI verb against the same database; returns its stdout. */
  folio(...args: string[]): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  cleanup(): void;
}

/** `prepare` runs CLI verbs before the server starts (so no demo data is seeded). */
export async function startServerProcess(prepare: (folio: (...args: string[]) => string) => void): Promise<ServerProcess> {
  const directory = mkdtempSync(join(tmpdir(), 'folio-process-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { ...process.env, FOLIO_DATABASE_URL: join(directory, 'folio.db'), FOLIO_PORT: String(port), FOLIO_BASE_URL: baseUrl, FOLIO_LOG_LEVEL: 'warn', FOLIO_ENV: 'test' };
  const folio = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  prepare(folio);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (attempt > 400) throw new Error('server did not become healthy');
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl, child, folio,
    stop() {
      if (child.exitCode !== null) return Promise.resolve(child.exitCode);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
    cleanup() {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
