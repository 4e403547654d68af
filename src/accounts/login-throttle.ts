// Sign-in failure limits (DESIGN §2): failures are counted per account (the
// normalized email, whether or not an account has it, so a lock says nothing
// about which emails exist) and per client address, with growing lockouts. A
// browser that has signed in to the account before (a trusted device, OWASP's
// "device cookies") counts against an allowance of its own instead, so a stranger
// who locks the account for unknown devices does not lock out its owner.
import { isIPv4, isIPv6 } from 'node:net';
import type { Clock } from '../platform/clock.ts';
import type { CountedAttempt } from '../domain/records.ts';
import type { LockoutPolicy, LoginThrottleStore } from '../storage/stores.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface GrowingLockout {
  /** Failures allowed before the first lock. */
  threshold: number;
  firstLockMs: number;
  maxLockMs: number;
  forgetAfterMs: number;
}

/** Locks at the threshold for `firstLockMs`, doubling with every further failure up to `maxLockMs`. */
export function growingLockout(options: GrowingLockout): LockoutPolicy {
  return {
    forgetAfterMs: options.forgetAfterMs,
    lockoutMs(failures) {
      if (failures < options.threshold) return 0;
      return Math.min(options.firstLockMs * 2 ** Math.min(failures - options.threshold, 30), options.maxLockMs);
    },
  };
}

/** Five tries, then 1, 2, 4 … 60 minutes; forgotten after a day without failures. */
export const accountLockout = growingLockout({ threshold: 5, firstLockMs: MINUTE, maxLockMs: HOUR, forgetAfterMs: 24 * HOUR });

/**
 * Higher, because many people can share one address (an office, a carrier NAT); it
 * catches one machine trying many accounts. Forgotten after two quiet hours: longer
 * than the longest lock, so an attacker who waits out each lock still climbs.
 */
export const addressLockout = growingLockout({ threshold: 20, firstLockMs: MINUTE, maxLockMs: HOUR, forgetAfterMs: 2 * HOUR });

/** The same normalization the user store applies, so "Ada@X" and "ada@x" share a counter. */
export function accountKey(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

/** A trusted device's own allowance for one account. */
function deviceKey(email: string, deviceHash: string): string {
  return `device:${deviceHash}:${email.trim().toLowerCase()}`;
}

/**
 * IPv4 addresses count one by one; IPv6 addresses by their /64, since one
 * subscriber usually holds a whole /64 and could otherwise change address per try.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped !== null) return `address:${mapped[1]}`;
  if (isIPv4(ip) || !isIPv6(ip)) return `address:${ip}`;
  const [head = '', tail = ''] = ip.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `address:${groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** "Try again in N minutes", rounded up so the page never promises too early. */
export function waitInWords(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / MINUTE));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/** A sign-in (or sign-up) attempt as the throttle saw it before any password or email was checked. */
export interface SignInAttempt {
  /** More than 0: locked; no password may be checked, and nothing was counted. */
  refusedForMs: number;
  /** How long the account or address is locked if this attempt fails (it is already counted). */
  lockedIfWrongMs: number;
  /** When this attempt, if wrong, locks the account (for unknown devices, or for this trusted one), or null. */
  locksAccountUntil: number | null;
  counted: { key: string; attempt: CountedAttempt }[];
}

export function createLoginThrottle(deps: { store: LoginThrottleStore; clock: Clock }) {
  const remaining = (until: number | null | undefined) => {
    const wait = (until ?? 0) - deps.clock.now();
    return wait > 0 ? wait : 0;
  };

  return {
    /**
     * Counts a sign-in attempt as a failure against the account and the address
     * before its password is checked. Counting afterwards let a burst of parallel
     * guesses all pass the lock check while the first ones were still being hashed.
     */
    async begin(email: string | undefined, ip: string, trustedDevice?: string): Promise<SignInAttempt> {
      const now = deps.clock.now();
      // The account first: a locked account must not cost its address a count.
      const limits: [string, LockoutPolicy][] = email === undefined ? [[addressKey(ip), addressLockout]]
        : trustedDevice !== undefined ? [[deviceKey(email, trustedDevice), accountLockout]]
          : [[accountKey(email), accountLockout], [addressKey(ip), addressLockout]];
      const counted: SignInAttempt['counted'] = [];
      for (const [index, [key, policy]] of limits.entries()) {
        const attempt = await deps.store.countAttempt(key, now, policy);
        if (!attempt.allowed) {
          for (const earlier of counted) await deps.store.forgiveAttempt(earlier.key, earlier.attempt);
          // Trying again helps only once every lock has passed: a locked account's minute
          // must not hide its address's hour. The keys after this one are read, not counted.
          const later = await Promise.all(limits.slice(index + 1).map(([laterKey]) => deps.store.lockedUntil(laterKey, now)));
          const until = Math.max(attempt.lockedUntil ?? 0, ...later.map((lock) => lock ?? 0));
          return { refusedForMs: Math.max(1, remaining(until)), lockedIfWrongMs: 0, locksAccountUntil: null, counted: [] };
        }
        counted.push({ key, attempt });
      }
      const [first] = counted;
      const locksAccountUntil = email !== undefined && first !== undefined && first.attempt.lockedUntil !== first.attempt.previousLockedUntil
        ? first.attempt.lockedUntil : null;
      return { refusedForMs: 0, lockedIfWrongMs: Math.max(0, ...counted.map(({ attempt }) => remaining(attempt.lockedUntil))), locksAccountUntil, counted };
    },

    /**
     * The password was right. The account's count goes; the address only takes back
     * this attempt: otherwise one account of the attacker's own would reset it between guesses.
     */
    async succeeded(attempt: SignInAttempt, email: string, trustedDevice?: string): Promise<void> {
      const ownKey = trustedDevice === undefined ? accountKey(email) : deviceKey(email, trustedDevice);
      for (const { key, attempt: counted } of attempt.counted) {
        if (key !== ownKey) await deps.store.forgiveAttempt(key, counted);
      }
      await deps.store.clearFailures(ownKey);
    },

    /** Takes the whole attempt back (a sign-up that did not find its email taken). */
    async notAFailure(attempt: SignInAttempt): Promise<void> {
      for (const { key, attempt: counted } of attempt.counted) await deps.store.forgiveAttempt(key, counted);
    },
  };
}
