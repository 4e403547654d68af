// The real server as a child process on a free port, with a throwaway SQLite
// file (or the database named in `env`): what the black-box, browser and
// reliability tests drive over real HTTP.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

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

/** What `serve` prints once its own listen has succeeded (src/server.ts). */
const LISTENING_LINE = 'Folio is listening on ';

/**
 * Starts `serve` and resolves once the child itself says it is listening. An
 * answer on its port would not prove that: in the moment between freePort()
 * and the child's listen, another test file's server may take the port, and
 * its answers would pass for this child's while the child fails to listen.
 */
export async function spawnListening(env: NodeJS.ProcessEnv, { logFile, entry }: Pick<ServerProcessOptions, 'logFile' | 'entry'> = {}): Promise<ChildProcess> {
  const log = logFile === undefined ? undefined : openSync(logFile, 'a');
  const logStart = log === undefined ? 0 : fstatSync(log).size;
  const child = spawn(process.execPath, [...commandFor(entry), 'serve'], { cwd: ROOT, env, stdio: ['ignore', log ?? 'pipe', log ?? 'inherit'] });
  if (log !== undefined) closeSync(log);
  const saidListening = logFile === undefined
    ? printed(child.stdout!, LISTENING_LINE)
    : () => readFileSync(logFile).subarray(logStart).includes(LISTENING_LINE);
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (saidListening()) return child;
    if (attempt > 400) {
      child.kill('SIGKILL');
      throw new Error('server did not say it was listening');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether `text` has been printed to `stream` yet; what follows it is read and dropped, so the child never blocks on a full pipe. */
function printed(stream: Readable, text: string): () => boolean {
  let seen = '';
  let found = false;
  const read = (chunk: Buffer) => {
    seen += chunk.toString('utf8');
    if (!seen.includes(text)) return;
    found = true;
    stream.off('data', read);
    stream.resume();
  };
  stream.on('data', read);
  return () => found;
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
    child: await spawnListening(env, options),
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
      server.child = await spawnListening(env, options);
    },
    cleanup() {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return server;
}
