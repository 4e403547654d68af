// Browser sessions, stored in the database so any instance can serve any
// request. The cookie holds a random id; only its hash is stored. A new id is
// issued at every sign-in (session fixation, OWASP ASVS 3.2.1).
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { generateCredential, hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { NewAuditEvent, Session, User } from '../domain/records.ts';
import type { SessionStore, UserStore } from '../storage/stores.ts';

export const SESSION_COOKIE = 'folio_session';
const CSRF_COOKIE = 'folio_csrf';
/** A browser that has signed in keeps this for a year: its own allowance of sign-in attempts (accounts/login-throttle.ts). */
const DEVICE_COOKIE = 'folio_device';
const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

/**
 * Under https every cookie is `__Host-` prefixed: Secure, for this host only and
 * every path, so a sibling subdomain can neither read nor plant one (the CSRF
 * cookie used before sign-in included). Over plain http (loopback development)
 * the prefix is not allowed.
 */
function cookieNames(secure: boolean) {
  const prefix = secure ? '__Host-' : '';
  return { session: prefix + SESSION_COOKIE, csrf: prefix + CSRF_COOKIE, device: prefix + DEVICE_COOKIE };
}
const MINUTE = 60_000;
export const sessionLifetimes = { idle: 120 * MINUTE, absolute: 12 * 60 * MINUTE } as const;
/** Writing last_seen_at on every request would make every page view a write. */
const TOUCH_INTERVAL = MINUTE;

export interface SignedIn {
  session: Session;
  user: User;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's session, looked up once: undefined until then, null when there is none. */
    signedIn: SignedIn | null | undefined;
  }
}

/**
 * What a group of pages needs before it can use Sessions: cookies parsed and set
 * (only pages carry any), and a place for the request's session.
 */
export async function registerSessionCookies(app: FastifyInstance): Promise<void> {
  await app.register(cookie);
  app.decorateRequest('signedIn', undefined);
}

export interface SessionDeps {
  sessions: SessionStore;
  users: Pick<UserStore, 'findUserById'>;
  clock: Clock;
  random: RandomSource;
  secureCookies: boolean;
}

export type Sessions = ReturnType<typeof createSessions>;

export function createSessions(deps: SessionDeps) {
  /** HttpOnly and SameSite=Lax always: Lax still sends it on the top-level GET to /oauth2/authorize. */
  const setCookie = (reply: FastifyReply, name: string, value: string, maxAge?: number) =>
    reply.setCookie(name, value, { path: '/', httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, maxAge });
  const names = cookieNames(deps.secureCookies);

  async function lookup(request: FastifyRequest): Promise<SignedIn | null> {
    const id = request.cookies[names.session];
    if (id === undefined || !isWellFormedCredential('session', id)) return null;
    const idHash = hashCredential(id);
    const session = await deps.sessions.findSession(idHash);
    if (session === undefined) return null;
    const now = deps.clock.now();
    if (session.expiresAt <= now || session.lastSeenAt + sessionLifetimes.idle <= now) {
      await deps.sessions.deleteSession(idHash);
      return null;
    }
    const user = await deps.users.findUserById(session.userId);
    if (user === undefined) return null;
    if (now - session.lastSeenAt >= TOUCH_INTERVAL) await deps.sessions.touchSession(idHash, now);
    return { session, user };
  }

  return {
    async current(request: FastifyRequest): Promise<SignedIn | undefined> {
      if (request.signedIn === undefined) request.signedIn = await lookup(request);
      return request.signedIn ?? undefined;
    },

    /**
     * `event` (a sign-in) is recorded in the same transaction as the new session;
     * `replacedEvent` (a sign-out) with the end of a session this one replaces, if any.
     */
    async start(request: FastifyRequest, reply: FastifyReply, userId: number, event?: NewAuditEvent, replacedEvent?: NewAuditEvent): Promise<void> {
      await this.end(request, reply, replacedEvent);
      const id = generateCredential('session', deps.random);
      const now = deps.clock.now();
      await deps.sessions.createSession({
        idHash: hashCredential(id), userId, csrfToken: deps.random.bytes(32).toString('base64url'),
        createdAt: now, lastSeenAt: now, expiresAt: now + sessionLifetimes.absolute,
      }, event);
      setCookie(reply, names.session, id);
      setCookie(reply, names.csrf, '', 0);
      request.signedIn = undefined;
    },

    /** `event` (a sign-out) is recorded with the session's end, and only if there was a session to end. */
    async end(request: FastifyRequest, reply: FastifyReply, event?: NewAuditEvent): Promise<void> {
      const id = request.cookies[names.session];
      if (id !== undefined && isWellFormedCredential('session', id)) await deps.sessions.deleteSession(hashCredential(id), event);
      if (id !== undefined) setCookie(reply, names.session, '', 0);
      request.signedIn = null;
    },

    /** The token for forms on this page: the session's, or before sign-in a double-submit cookie's. */
    async csrfToken(request: FastifyRequest, reply: FastifyReply): Promise<string> {
      const signedIn = await this.current(request);
      if (signedIn !== undefined) return signedIn.session.csrfToken;
      const existing = request.cookies[names.csrf];
      if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
      const token = deps.random.bytes(32).toString('base64url');
      setCookie(reply, names.csrf, token);
      return token;
    },

    /** The browser's session id (the key of what is sealed for it), if it sent one. */
    sessionId(request: FastifyRequest): string | undefined {
      return request.cookies[names.session];
    },

    /** The browser's device cookie, if it sent one. */
    device(request: FastifyRequest): string | undefined {
      return request.cookies[names.device];
    },

    rememberDevice(reply: FastifyReply, device: string): void {
      setCookie(reply, names.device, device, DEVICE_COOKIE_MAX_AGE);
    },

    async verifyCsrf(request: FastifyRequest, submitted: string | undefined): Promise<boolean> {
      if (submitted === undefined) return false;
      const signedIn = await this.current(request);
      const expected = signedIn?.session.csrfToken ?? request.cookies[names.csrf];
      // An empty cookie (one planted from a sibling domain, say) matches an empty field: never accept it.
      if (expected === undefined || expected === '') return false;
      const a = Buffer.from(submitted);
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
