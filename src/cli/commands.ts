import { appCreate, appRotateSecret } from './app.ts';
import type { Command } from './context.ts';
import { demo } from './demo.ts';
import { migrate, tokensPurge } from './maintenance.ts';
import { portfolioCreate } from './portfolio.ts';
import { serve } from './serve.ts';
import { userCreate } from './user.ts';

/** Verbs by their words on the command line; DESIGN §4 lists the same. */
export const commands: Record<string, Command> = {
  serve,
  migrate,
  demo,
  'user create': userCreate,
  'app create': appCreate,
  'app rotate-secret': appRotateSecret,
  'portfolio create': portfolioCreate,
  'tokens purge': tokensPurge,
};

/** The command named by the first one or two words of argv, and the arguments after them. */
export function findCommand(argv: string[]): { command: Command; args: string[] } | undefined {
  const [first = '', second = ''] = argv;
  const twoWords = commands[`${first} ${second}`];
  if (twoWords !== undefined) return { command: twoWords, args: argv.slice(2) };
  const oneWord = commands[first];
  if (oneWord !== undefined) return { command: oneWord, args: argv.slice(1) };
  return undefined;
}
