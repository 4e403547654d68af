// Runs the real CLI as a child process, the way an operator would.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult { status: number | null; stdout: string; stderr: string }

export interface CliSandbox {
  databaseFile: string;
  run(args: string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<CliResult>;
  remove(): void;
}

/** A fresh SQLite file in a temporary directory, and a runner pointed at it. */
export function cliSandbox(): CliSandbox {
  const directory = mkdtempSync(join(tmpdir(), 'folio-cli-'));
  const databaseFile = join(directory, 'folio.db');
  const baseEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('FOLIO_') && name !== 'PORT') baseEnv[name] = value;
  }
  return {
    databaseFile,
    run(args, options = {}) {
      const env = { ...baseEnv, FOLIO_DATABASE_URL: databaseFile, FOLIO_LOG_LEVEL: 'silent', ...options.env };
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: repoRoot, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      child.stdin.end(options.stdin ?? '');
      return new Promise((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    },
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** An operator-facing failure: exactly one `folio: error:` line and no stack trace. */
export function oneLineError(result: CliResult): string {
  const lines = result.stderr.trimEnd().split('\n');
  if (lines.length !== 1 || !lines[0]!.startsWith('folio: error: ') || result.stderr.includes('    at ')) {
    throw new Error(`expected one error line, got:\n${result.stderr}`);
  }
  return lines[0]!;
}
