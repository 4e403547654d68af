// Child processes of the benchmark: servers pinned to one core, the load
// generator pinned to the other (where taskset exists), RSS sampled from /proc.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url).pathname;
export const HAS_TASKSET = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const SERVER_CORE = '0';
const LOAD_CORE = '1';

export { freePort } from '../test/support/server-process.ts';

function pinned(core: string, args: string[]): [string, string[]] {
  return HAS_TASKSET ? ['taskset', ['-c', core, process.execPath, ...args]] : [process.execPath, args];
}

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 2xx answer of the readiness URL. */
  readyMs: number;
  stop(): Promise<void>;
}

const READY_WITHIN_MS = 90_000;

/**
 * Spawns `node ...args` on the server core and waits until `readyPath` answers 2xx
 * from the child itself: freePort() only finds a port free for a moment, and
 * another process (a test file's server, beside the smoke run) may take it before
 * the child listens; that process's answers must not pass for the child's.
 */
export async function startServer(name: string, args: string[], port: number, readyPath: string, env: Record<string, string> = {}): Promise<Server> {
  const [command, argv] = pinned(SERVER_CORE, args);
  const started = performance.now();
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  const url = `http://127.0.0.1:${port}`;
  let readyMs: number;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr}`);
    // Generous: the smoke run starts several servers under tsx at once on one core,
    // beside the other test files of a busy `npm test`.
    if (performance.now() - started > READY_WITHIN_MS) {
      // A server that never became ready is nobody's to stop later: stop it now.
      child.kill('SIGKILL');
      throw new Error(`${name} did not become ready within ${READY_WITHIN_MS / 1000} s: ${stderr}`);
    }
    try {
      const answer = await fetch(url + readyPath);
      const answeredMs = performance.now() - started;
      if (answer.ok && listensOn(child.pid!, port) !== false) {
        readyMs = answeredMs;
        break;
      }
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    name, url, child, readyMs,
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      return exited.finally(() => clearTimeout(force));
    },
  };
}

/**
 * Whether process `pid` holds the socket listening on TCP `port` (IPv4 or IPv6),
 * read from /proc; undefined where /proc cannot tell (not Linux, say).
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  const inodes = new Set<string>();
  try {
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        // local_address is ADDRESS:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
        if (fields.length > 9 && fields[3] === '0A' && Number.parseInt(fields[1]!.split(':')[1]!, 16) === port) inodes.add(fields[9]!);
      }
    }
  } catch {
    return undefined;
  }
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.startsWith('socket:[') && inodes.has(target.slice('socket:['.length, -1));
      } catch {
        return false; // closed since the listing
      }
    });
  } catch {
    return false; // the process is gone
  }
}

/** VmRSS of a process in MB, or undefined where /proc is not there. */
function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statuses: Record<string, number>;
  /** With the spec's `issuing`: the token requests beside the load answered 2xx, and what the others got. */
  issued?: number;
  issueRefused?: string[];
  /** Highest VmRSS of the server seen during the run, MB. */
  maxRssMb?: number | undefined;
}

/** Runs bench/load-worker.mjs on the load core against `server`, sampling the server's RSS meanwhile. */
export function runLoad(spec: Record<string, unknown>, serverPid: number | undefined): Promise<LoadResult> {
  const [command, argv] = pinned(LOAD_CORE, ['bench/load-worker.mjs', JSON.stringify(spec)]);
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let maxRssMb: number | undefined;
  const sample = () => {
    const rss = serverPid === undefined ? undefined : rssMb(serverPid);
    if (rss !== undefined) maxRssMb = Math.max(maxRssMb ?? 0, rss);
  };
  const sampler = setInterval(sample, 100);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      clearInterval(sampler);
      sample();
      if (code !== 0) return reject(new Error(`load worker failed (${code}): ${stderr}`));
      resolve({ ...(JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult), maxRssMb });
    });
  });
}

/** What every benchmarked Folio server is started with, before the serve script's and the scenario's own environment. */
export function folioServerEnv(databaseUrl: string, port: number, logLevel: string): Record<string, string> {
  return {
    FOLIO_DATABASE_URL: databaseUrl, FOLIO_HOST: '127.0.0.1', FOLIO_PORT: String(port),
    FOLIO_BASE_URL: `http://127.0.0.1:${port}`, FOLIO_ENV: 'production', FOLIO_LOG_LEVEL: logLevel,
    // The load comes from one application and user: the default 360 a minute would answer 429.
    FOLIO_RATE_LIMIT_PER_MINUTE: String(Number.MAX_SAFE_INTEGER),
  };
}

/** Folio as deployed: the environment and Node flags of `npm run serve` in package.json, read from there so no benchmark can drift from it. */
export function serveScript(): { env: Record<string, string>; nodeFlags: string[] } {
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  const words = scripts.serve!.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let assignment: RegExpExecArray | null;
  while ((assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(words[0] ?? '')) !== null) {
    env[assignment[1]!] = assignment[2]!;
    words.shift();
  }
  if (words[0] !== 'node' || words.slice(-2).join(' ') !== 'dist/main.js serve') {
    throw new Error(`package.json's serve script is not "[NAME=value ...] node [flags] dist/main.js serve": ${scripts.serve}`);
  }
  return { env, nodeFlags: words.slice(1, -2) };
}
