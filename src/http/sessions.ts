// Browser sessions, stored in the database so any instance can serve any
// request. The cookie holds a random id; only its hash is stored. A new id is
// issued at every sign-in (session fixation, OWASP ASVS 3.2.1).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { generateCredential, hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { NewAuditEvent, Session, User } from '../storage/records.ts';
import type { SessionStore, UserStore } from '../storage/stores.ts';
import { readCookie, serializeCookie } from './cookies.ts';

export const SESSION_COOKIE = 'folio_session';
const CSRF_COOKIE = 'folio_csrf';
const MINUTE = 60_000;
export const sessionLifetimes = { idle: 120 * MINUTE, absolute: 12 * 60 * MINUTE } as const;
/** Writing last_seen_at on every request would make every page view a write. */
const TOUCH_INTERVAL = MINUTE;

export interface SignedIn {
  session: Session;
  user: User;
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
  const loaded = new WeakMap<FastifyRequest, SignedIn | null>();
  const cookie = (name: string, value: string, maxAge?: number) =>
    serializeCookie(name, value, { secure: deps.secureCookies, ...(maxAge === undefined ? {} : { maxAge }) });

  async function lookup(request: FastifyRequest): Promise<SignedIn | null> {
    const id = readCookie(request.headers.cookie, SESSION_COOKIE);
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
      if (!loaded.has(request)) loaded.set(request, await lookup(request));
      return loaded.get(request) ?? undefined;
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
      reply.header('set-cookie', [cookie(SESSION_COOKIE, id), cookie(CSRF_COOKIE, '', 0)]);
      loaded.delete(request);
    },

    /** `event` (a sign-out) is recorded with the session's end, and only if there was a session to end. */
    async end(request: FastifyRequest, reply: FastifyReply, event?: NewAuditEvent): Promise<void> {
      const id = readCookie(request.headers.cookie, SESSION_COOKIE);
      if (id !== undefined && isWellFormedCredential('session', id)) await deps.sessions.deleteSession(hashCredential(id), event);
      if (id !== undefined) reply.header('set-cookie', cookie(SESSION_COOKIE, '', 0));
      loaded.set(request, null);
    },

    /** The token for forms on this page: the session's, or before sign-in a double-submit cookie's. */
    async csrfToken(request: FastifyRequest, reply: FastifyReply): Promise<string> {
      const signedIn = await this.current(request);
      if (signedIn !== undefined) return signedIn.session.csrfToken;
      const existing = readCookie(request.headers.cookie, CSRF_COOKIE);
      if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
      const token = deps.random.bytes(32).toString('base64url');
      reply.header('set-cookie', cookie(CSRF_COOKIE, token));
      return token;
    },

    async verifyCsrf(request: FastifyRequest, submitted: string | undefined): Promise<boolean> {
      if (submitted === undefined) return false;
      const signedIn = await this.current(request);
      const expected = signedIn?.session.csrfToken ?? readCookie(request.headers.cookie, CSRF_COOKIE);
      // An empty cookie (one planted from a sibling domain, say) matches an empty field: never accept it.
      if (expected === undefined || expected === '') return false;
      const a = Buffer.from(submitted);
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
