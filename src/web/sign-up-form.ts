// What the sign-up form accepts: a name, an email address, and a password typed twice.
import { hasUnsafeCharacters } from '../accounts/names.ts';
import { MAX_PASSWORD_BYTES } from '../platform/password.ts';
import type { FieldErrors } from './form-fields.ts';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_NAME_LENGTH = 100;
const MAX_EMAIL_LENGTH = 254;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export interface SignUpValues {
  name: string;
  email: string;
}

export type SignUpResult =
  | { ok: true; account: SignUpValues & { password: string } }
  | { ok: false; errors: FieldErrors; values: SignUpValues };

export const signUpLabels = { name: 'Your name', email: 'Email', password: 'Password', confirm: 'Confirm password' };

export function validateSignUp(params: Record<string, string | undefined>): SignUpResult {
  const values = { name: (params.name ?? '').trim(), email: (params.email ?? '').trim() };
  const password = params.password ?? '';
  const errors: FieldErrors = {};
  if (values.name === '') errors.name = 'Enter your name.';
  else if ([...values.name].length > MAX_NAME_LENGTH) errors.name = `Use at most ${MAX_NAME_LENGTH} characters.`;
  else if (hasUnsafeCharacters(values.name)) errors.name = 'Use letters, spaces and punctuation only.';
  if (values.email === '') errors.email = 'Enter your email address.';
  else if (values.email.length > MAX_EMAIL_LENGTH || !EMAIL.test(values.email)) errors.email = 'Enter an email address like name@example.com.';
  if ([...password].length < MIN_PASSWORD_LENGTH) errors.password = `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  else if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) errors.password = `Use at most ${MAX_PASSWORD_BYTES} bytes.`;
  if (errors.password === undefined && params.confirm !== password) errors.confirm = 'The two passwords do not match.';
  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  return { ok: true, account: { ...values, password } };
}
