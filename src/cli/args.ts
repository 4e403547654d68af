import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs in strict mode, its errors turned into one-line usage errors. */
export function parseFlags<T extends Options>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // parseArgs appends advice about '--' to unknown options; the first sentence is the point.
    const firstSentence = message.split(/\.\s/)[0]!.replace(/\.$/, '');
    throw new UsageError(firstSentence.charAt(0).toLowerCase() + firstSentence.slice(1));
  }
}

export function requireFlag(value: string | undefined, flag: string, verb: string): string {
  if (value === undefined || value === '') throw new UsageError(`${verb} needs --${flag}`);
  return value;
}

export function printJson(out: (text: string) => void, value: unknown): void {
  out(JSON.stringify(value));
}
