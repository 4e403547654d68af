// What an account operation refuses, in words a person can act on. The CLI prints it
// as one line; the web pages show it next to the form field it names.

export type AccountErrorReason = 'invalid' | 'not_found' | 'conflict';

export class AccountError extends Error {
  constructor(
    message: string,
    readonly reason: AccountErrorReason,
    /** The input it is about (a form field name), when it is about one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}
