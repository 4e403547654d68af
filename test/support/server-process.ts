// The real server as a child process on a free port, with a throwaway SQLite
// file (or the database named in `env`): what the black-box, browser and
// reliability tests drive over real HTTP.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
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

export interface ServerProcessOptions {
  /** Added to the environment of the server and of `folio`, e.g. FOLIO_DATABASE_URL=postgres://... */
  env?: Record<string, string>;
  /** Appends the server's stdout and stderr to this file (by default stdout is dropped, stderr inherited). */
  logFile?: string;
  /** The built entry script (e.g. a bundle's main.js) to run instead of src/main.ts through tsx. */
  entry?: string;
}

export interface ServerProcess {
  baseUrl: string;
  /** The running child; a new one after restart(). */
  child: ChildProcess;
  /** The temporary directory holding the SQLite file (folio.db) unless `env` named another database. */
  directory: string;
  /** Runs a CLI verb against the same database; returns its stdout. */
  folio(...args: string[]): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Starts the server again on the same port and database once the previous child has exited. */
  restart(): Promise<void>;
  cleanup(): void;
}

function commandFor(entry: string | undefined): string[] {
  return entry === undefined ? ['--import', 'tsx', 'src/main.ts'] : [entry];
}

async function spawnHealthy(env: NodeJS.ProcessEnv, baseUrl: string, { logFile, entry }: ServerProcessOptions): Promise<ChildProcess> {
  const log = logFile === undefined ? undefined : openSync(logFile, 'a');
  const stdio = log === undefined ? ['ignore', 'ignore', 'inherit'] as const : ['ignore', log, log] as const;
  const child = spawn(process.execPath, [...commandFor(entry), 'serve'], { cwd: ROOT, env, stdio: [...stdio] });
  if (log !== undefined) closeSync(log);
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (attempt > 400) {
      child.kill('SIGKILL');
      throw new Error('server did not become healthy');
    }
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return child;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `prepare` runs CLI verbs before the server starts (so no demo data is seeded). */
export async function startServerProcess(prepare: (folio: (...args: string[]) => string) => void, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const directory = mkdtempSync(join(tmpdir(), 'folio-process-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env, FOLIO_DATABASE_URL: join(directory, 'folio.db'), FOLIO_PORT: String(port), FOLIO_BASE_URL: baseUrl, FOLIO_LOG_LEVEL: 'warn', FOLIO_ENV: 'test',
    ...options.env,
  };
  const folio = (...args: string[]) => execFileSync(process.execPath, [...commandFor(options.entry), ...args], { cwd: ROOT, env, encoding: 'utf8' });
  try {
    prepare(folio);
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const server: ServerProcess = {
    baseUrl, directory, folio,
    child: await spawnHealthy(env, baseUrl, options),
    stop() {
      const { child } = server;
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
    async restart() {
      const { child } = server;
      if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
      server.child = await spawnHealthy(env, baseUrl, options);
    },
    cleanup() {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return server;
}
