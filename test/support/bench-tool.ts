// A tool under bench/ run as a user runs it, `node --import tsx bench/...` from the project's root.
import { spawn } from 'node:child_process';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Runs `node --import tsx ...args` to its end: its exit status, its pid and everything it printed. */
export async function runBenchTool(args: string[]): Promise<{ status: number | null; pid: number; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { status, pid: child.pid!, output };
}
