// Checks on operator input, each returning the value to store or throwing a one-line CliError.
import * as applications from '../accounts/applications.ts';
import { hasUnsafeCharacters } from '../accounts/names.ts';
import { MAX_PASSWORD_BYTES } from '../platform/password.ts';
import { CliError } from './errors.ts';

export const MIN_PASSWORD_LENGTH = 8;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function validEmail(email: string): string {
  const trimmed = email.trim();
  if (trimmed.length > 254 || !EMAIL.test(trimmed)) throw new CliError(`not an email address: ${email}`);
  return trimmed;
}

export function validPassword(password: string): string {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw new CliError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw new CliError(`password must be at most ${MAX_PASSWORD_BYTES} bytes`);
  return password;
}

export function validName(name: string, what: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) throw new CliError(`${what} name must be 1 to 200 characters`);
  if (hasUnsafeCharacters(trimmed)) throw new CliError(`${what} name must not contain control or text-direction characters`);
  return trimmed;
}

/** The same rules as the API settings pages (src/accounts/applications.ts). */
export function validApplicationName(name: string): string {
  return orCliError(() => applications.validApplicationName(name));
}

export function validRedirectUris(uris: string[]): string[] {
  return orCliError(() => applications.validRedirectUris(uris));
}

function orCliError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw error instanceof Error ? new CliError(error.message) : error;
  }
}

/** ISO 4217 shape; the list of real codes changes, so only the shape is checked. */
export function validCurrency(code: string): string {
  if (!/^[A-Z]{3}$/.test(code)) throw new CliError(`currency must be an ISO 4217 code like AUD, got ${JSON.stringify(code)}`);
  return code;
}

export function validCountry(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) throw new CliError(`country must be an ISO 3166-1 alpha-2 code like AU, got ${JSON.stringify(code)}`);
  return code;
}
