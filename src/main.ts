// Process entry: `folio <verb> ...`. The environment comes from config.ts, the one
// module that reads it, unless a test hands in its own.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, processEnvironment } from './config.ts';
import { commands, findCommand } from './cli/commands.ts';
import type { CliIo } from './cli/context.ts';
import { CliError, UsageError } from './cli/errors.ts';
import { helpText } from './cli/help.ts';
import { systemClock } from './platform/clock.ts';
import { cryptoRandom } from './platform/random.ts';

type Env = Record<string, string | undefined>;

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  },
};

function isHelp(argv: string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h';
}

/** One line, never a stack trace: operators read this, and it may be piped into scripts. */
function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `folio: error: ${message.split('\n')[0]}`;
}

/** Runs one verb and returns the exit status (0 ok, 1 failure, 2 usage). `serve` returns once listening. */
export async function main(argv: string[], env: Env = processEnvironment(), io: CliIo = processIo): Promise<number> {
  if (isHelp(argv)) {
    io.out(helpText(commands));
    return 0;
  }
  try {
    const found = findCommand(argv);
    if (found === undefined) throw new UsageError(`unknown command "${argv.slice(0, 2).join(' ')}" (see folio help)`);
    if (found.args.includes('--help') || found.args.includes('-h')) {
      io.out(`Usage: ${found.command.usage}`);
      return 0;
    }
    const config = loadConfig(env);
    await found.command.run(found.args, { config, io, clock: systemClock, random: cryptoRandom });
    return 0;
  } catch (error) {
    io.err(errorLine(error));
    if (error instanceof CliError) return error.exitCode;
    if (error instanceof ConfigError) return 1;
    return 1;
  }
}

export async function runFromProcess(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2));
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) await runFromProcess();
