/** A failure the operator can fix: printed as one line, exit status 1. */
export class CliError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** The command line itself was wrong (unknown verb or flag, missing flag): exit status 2. */
export class UsageError extends CliError {
  override readonly exitCode: number = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
