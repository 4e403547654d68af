// Checking a person's password: what the sign-in form's POST decides, apart from
// the page. Every attempt is counted before its password is hashed (a locked account
// or address gets no guess), an unknown email costs as much as a wrong password, and
// a browser that signs in is remembered as a trusted device of the account.
import type { Clock } from '../platform/clock.ts';
import { type PasswordCost, hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from '../platform/password.ts';
import type { RandomSource } from '../platform/random.ts';
import { generateCredential, hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { AuditEventType, NewAuditEvent, User } from '../domain/records.ts';
import type { Storage } from '../storage/stores.ts';
import type { LoginThrottle } from './login-throttle.ts';

export interface SignInDeps {
  storage: Pick<Storage, 'users' | 'devices' | 'audit'>;
  throttle: LoginThrottle;
  clock: Clock;
  random: RandomSource;
  /** The cost passwords are hashed at; hashes made at less are made again at the next sign-in. */
  passwordCost: PasswordCost;
}

export interface SignInInput {
  email: string;
  password: string;
  ip: string;
  /** The browser's device cookie, if it sent one. */
  device: string | undefined;
}

/**
 * A device stays trusted for a year after its last sign-in, as long as its cookie
 * lives, so a cookie copied from a browser long ago no longer lifts a lockout.
 */
export const DEVICE_TRUST_MS = 365 * 24 * 60 * 60 * 1000;

export type SignInOutcome =
  | { kind: 'refused'; waitMs: number }
  | { kind: 'wrong'; lockedForMs: number }
  /** `device`: the browser's device cookie, new if it had none. */
  | { kind: 'signed_in'; user: User; device: string };

const event = (type: AuditEventType, userId: number | null, ip: string, now: number, detail: Record<string, unknown> = {}): NewAuditEvent =>
  ({ type, userId, applicationId: null, ip, detail, createdAt: now });

export async function checkSignIn(input: SignInInput, deps: SignInDeps): Promise<SignInOutcome> {
  const { storage, throttle, clock } = deps;
  const now = clock.now();
  const account = input.email === '' || input.email.length > 320 ? undefined : input.email;
  const device = input.device !== undefined && isWellFormedCredential('device', input.device) ? input.device : undefined;
  const deviceHash = device === undefined ? undefined : hashCredential(device);
  const trusted = account !== undefined && deviceHash !== undefined && await storage.devices.isTrustedFor(deviceHash, account, now - DEVICE_TRUST_MS);
  const attempt = await throttle.begin(account, input.ip, trusted ? deviceHash : undefined);
  const user = account === undefined ? undefined : await storage.users.findUserCredentials(account);
  if (attempt.refusedForMs > 0) {
    await storage.audit.recordEvent(event('sign_in.failure', user?.id ?? null, input.ip, now, { locked: true }));
    return { kind: 'refused', waitMs: attempt.refusedForMs };
  }
  const valid = user === undefined
    ? await verifyAgainstDummy(input.password, deps.passwordCost)
    : await verifyPassword(input.password, user.passwordHash);
  if (user === undefined || !valid) {
    await storage.audit.recordEvent(event('sign_in.failure', user?.id ?? null, input.ip, now));
    // The account's owner sees in Activity that strangers locked it, and until when.
    if (user !== undefined && attempt.locksAccountUntil !== null) {
      await storage.audit.recordEvent(event('sign_in.locked', user.id, input.ip, now, { until: attempt.locksAccountUntil, trusted_device: trusted }));
    }
    return { kind: 'wrong', lockedForMs: attempt.lockedIfWrongMs };
  }
  await throttle.succeeded(attempt, user.email, trusted ? deviceHash : undefined);
  const { passwordHash, ...signedIn } = user;
  if (needsRehash(passwordHash, deps.passwordCost)) {
    await storage.users.replacePasswordHash(user.id, await hashPassword(input.password, deps.passwordCost), now);
  }
  const keptDevice = device ?? generateCredential('device', deps.random);
  await storage.devices.trust(hashCredential(keptDevice), user.id, now);
  return { kind: 'signed_in', user: signedIn, device: keptDevice };
}
