import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';

/** Where a command writes and reads; main.ts binds it to the process, tests may not need to. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
}

export interface CommandContext {
  config: Config;
  io: CliIo;
  clock: Clock;
  random: RandomSource;
}

export interface Command {
  /** One usage line, shown by `folio help` and `folio <verb> --help`. */
  usage: string;
  run(args: string[], context: CommandContext): Promise<void>;
}
