// Storage interfaces shaped by use (DESIGN §3): each method is one thing a flow
// needs, and any atomicity the flow relies on lives inside the method.
import type {
  AccessToken, Application, ApplicationChanges, AuditEvent, AuditEventType, AuthorizationCode,
  ConnectedApplication, Consent, Grant, NewApplication, NewAuditEvent, Portfolio,
  PortfolioFields, RefreshToken, Session, User, UserCredentials,
} from './records.ts';
import type { Pause } from '../platform/pacer.ts';

// A change and its audit event are one transaction: each method that changes what a
// person or an application can do takes the event and writes it with the change, so
// neither commits without the other. Where the change creates the record, the event
// is built from it (it needs the new id).

export interface UserStore {
  createUser(input: { email: string; name: string; passwordHash: string; now: number }, event: (user: User) => NewAuditEvent): Promise<User>;
  /** Email is matched case-insensitively. */
  findUserCredentials(email: string): Promise<UserCredentials | undefined>;
  findUserById(id: number): Promise<User | undefined>;
  /** False on a new database: start-up seeds demo data only then. */
  hasAnyUser(): Promise<boolean>;
}

export interface ApplicationStore {
  /**
   * With `reveal`, the new secret is held for its one showing in the same transaction;
   * SessionEndedError, with nothing written, when the reveal's session is gone.
   */
  createApplication(
    input: NewApplication, now: number, event: (application: Application) => NewAuditEvent, reveal?: (application: Application) => SecretReveal,
  ): Promise<Application>;
  findApplicationByClientId(clientId: string): Promise<Application | undefined>;
  findApplicationById(id: number): Promise<Application | undefined>;
  listApplicationsOwnedBy(ownerId: number): Promise<Application[]>;
  /** Returns undefined, and records nothing, when no application with that id belongs to ownerId. */
  updateApplication(
    id: number, ownerId: number, changes: ApplicationChanges, now: number, event: (updated: Application) => NewAuditEvent,
  ): Promise<Application | undefined>;
  /**
   * The old secret stops working the moment this returns true. False (nothing recorded): no
   * such application. With `reveal`, the new secret is held for its one showing in the same
   * transaction, so the old one never dies without the new one being there to show;
   * SessionEndedError, with nothing written, when the reveal's session is gone.
   */
  replaceApplicationSecret(id: number, secretHash: string, now: number, event: NewAuditEvent, reveal?: SecretReveal): Promise<boolean>;
  /** Deletes the application and, with it, every grant, code and token it holds. False (nothing recorded): none was owner's. */
  deleteApplication(id: number, ownerId: number, event: NewAuditEvent): Promise<boolean>;
}

export interface GrantStore {
  /**
   * The live grant of this user for this application, created if there is none.
   * Throws ApplicationGoneError when the application no longer exists.
   */
  findOrCreateActiveGrant(userId: number, applicationId: number, scope: string[], now: number): Promise<Grant>;
  findGrant(id: number): Promise<Grant | undefined>;
  /**
   * The user ends an application's access: revokes the grant and, in one
   * transaction, every code, access and refresh token descended from it, and
   * forgets the user's consent, so the application's next request asks again.
   */
  disconnectApplication(grantId: number, now: number, event: NewAuditEvent): Promise<void>;
  /**
   * Revokes one authorization: every access and refresh token of the grant
   * descended from the code `codeHash`, through any number of refreshes, in one
   * transaction. The grant and its other authorizations stay live, unless nothing
   * live is left (then the grant ends). Tokens from before tokens recorded their
   * code (migration 0005) belong to no known authorization: with `codeHash` null
   * (such a token's own), or while the grant holds a live refresh token of that
   * kind, all of the grant is revoked.
   */
  revokeAuthorization(grantId: number, codeHash: string | null, now: number, event: NewAuditEvent): Promise<void>;
  listConnectedApplications(userId: number): Promise<ConnectedApplication[]>;
}

export interface AuthorizationCodeStore {
  /** Throws ApplicationGoneError, with nothing saved, when the code's application (and so its grant) is gone. */
  saveAuthorizationCode(code: AuthorizationCode): Promise<void>;
  findAuthorizationCode(codeHash: string): Promise<AuthorizationCode | undefined>;
}

export interface IssuedTokens {
  access: AccessToken;
  refresh?: RefreshToken;
  /**
   * The audit event of this issue, written in the same transaction: the token and
   * its record commit together, and one commit (one fsync) serves both.
   */
  event?: NewAuditEvent;
}

export interface TokenStore {
  /**
   * Saves an access token (and refresh token) in one transaction and marks the
   * grant used. False when the grant is revoked: nothing is saved.
   */
  saveTokens(tokens: IssuedTokens): Promise<boolean>;
  /**
   * An access token issued beside a refresh token is bound to it: revoked with it
   * (revokedAt its own revocation's time, else the refresh token's), and undefined
   * once the refresh token is gone, as when its grant is.
   */
  findAccessToken(tokenHash: string): Promise<AccessToken | undefined>;
  /**
   * The access token with this hash when this process holds it in memory, as
   * findAccessToken would answer now (kysely/read-cache.ts); undefined when it
   * holds none. Never reads the database. A store without such memory leaves it out.
   */
  recallAccessToken?(tokenHash: string): AccessToken | undefined;
  findRefreshToken(tokenHash: string): Promise<RefreshToken | undefined>;
  /**
   * Rotation: marks `previousHash` rotated only if it and its grant are still
   * live (not rotated, not revoked) and saves `next` in the same transaction.
   * False means another request won the race or the token is no longer live;
   * nothing was written.
   */
  rotateRefreshToken(previousHash: string, next: IssuedTokens, now: number): Promise<boolean>;
  /**
   * Code exchange: marks the code used only if it is unused and its grant live,
   * and saves `tokens` in the same transaction. False means another redemption
   * spent the code first or the grant is revoked; nothing was written.
   */
  redeemAuthorizationCode(codeHash: string, tokens: IssuedTokens, now: number): Promise<boolean>;
  /** Returns false, and records nothing, when the token was unknown or already revoked. */
  revokeAccessToken(tokenHash: string, now: number, event: NewAuditEvent): Promise<boolean>;
  /**
   * Deletes tokens and codes expired or revoked before `olderThan`. Rotated refresh
   * tokens and consumed codes stay until they expire, so that their reuse is still detected.
   * Deletes in small batches and awaits `betweenBatches` after each (by default it
   * only yields to the event loop).
   */
  purgeExpired(now: number, olderThan: number, betweenBatches?: Pause): Promise<{ accessTokens: number; refreshTokens: number; codes: number }>;
}

export interface SessionStore {
  /** A sign-in records its `event` with the session; a session started by sign-up has none of its own. */
  createSession(session: Session, event?: NewAuditEvent): Promise<void>;
  findSession(idHash: string): Promise<Session | undefined>;
  touchSession(idHash: string, now: number): Promise<void>;
  /** Records `event` (a sign-out) only if the session still existed; says whether it did. */
  deleteSession(idHash: string, event?: NewAuditEvent): Promise<boolean>;
}

export interface ConsentStore {
  findConsent(userId: number, applicationId: number): Promise<Consent | undefined>;
  /**
   * Replaces any earlier consent: the latest answer is the one remembered. Throws
   * ApplicationGoneError, with nothing written, when the application no longer exists.
   */
  rememberConsent(userId: number, applicationId: number, scope: string[], now: number, event: NewAuditEvent): Promise<void>;
  /**
   * A denial: withdraws any earlier consent. Throws ApplicationGoneError, with
   * nothing written, when the application no longer exists.
   */
  forgetConsent(userId: number, applicationId: number, event: NewAuditEvent): Promise<void>;
}

export interface AuditStore {
  /** An event that changes nothing else (a refused sign-in). */
  recordEvent(event: NewAuditEvent): Promise<void>;
  /** Newest first; only events of `types` when given (the activity page leaves out routine refreshes). */
  listEventsForUser(userId: number, limit: number, types?: readonly AuditEventType[]): Promise<AuditEvent[]>;
}

export interface PortfolioStore {
  createPortfolio(ownerId: number, fields: PortfolioFields, now: number): Promise<Portfolio>;
  listPortfoliosOwnedBy(ownerId: number): Promise<Portfolio[]>;
  findPortfolioOwnedBy(id: number, ownerId: number): Promise<Portfolio | undefined>;
  updatePortfolio(id: number, ownerId: number, fields: PortfolioFields, now: number): Promise<Portfolio | undefined>;
  deletePortfolio(id: number, ownerId: number): Promise<boolean>;
}

/** How a key's failures turn into lockouts; see src/http/login-throttle.ts. */
export interface LockoutPolicy {
  /** A key not locked and without a failure for this long starts counting again from zero. */
  forgetAfterMs: number;
  /** How long to lock a key that has just reached `failures` failures; 0 for no lock. */
  lockoutMs(failures: number): number;
}

export interface FailureCount {
  failures: number;
  /** When the key's lock ends, or null when it is not locked. */
  lockedUntil: number | null;
}

/** A sign-in attempt counted as a failure before its password is checked. */
export interface CountedAttempt extends FailureCount {
  /** False when a lock was already in force: nothing was counted, and no password may be checked. */
  allowed: boolean;
  /** The key's lock before this attempt (null, or one that had ended), for `forgiveAttempt`. */
  previousLockedUntil: number | null;
}

/** Sign-in failures counted per key (an account's email, a client address), with lockouts. */
export interface LoginThrottleStore {
  /**
   * Counts one attempt as a failure, in one atomic upsert, and locks as `policy`
   * says; but only when no lock is in force, decided in the same step: of
   * concurrent attempts, none gets past a lock another one set.
   */
  countAttempt(key: string, now: number, policy: LockoutPolicy): Promise<CountedAttempt>;
  /**
   * Takes back an allowed attempt that was not a failure after all: one failure
   * less, and the lock it set undone unless a later attempt has changed it.
   */
  forgiveAttempt(key: string, attempt: CountedAttempt): Promise<void>;
  /** When the lock on `key` in force at `now` ends, or null; counts nothing. */
  lockedUntil(key: string, now: number): Promise<number | null>;
  clearFailures(key: string): Promise<void>;
  /**
   * Deletes counters untouched since `olderThan` and not locked past it, in small
   * batches, awaiting `betweenBatches` after each (by default it only yields).
   */
  forgetFailuresBefore(olderThan: number, betweenBatches?: Pause): Promise<number>;
}

/**
 * A client secret waiting to be shown once to the signed-in person who created or
 * rotated it. The row holds it sealed with a key only that person's browser has
 * (see src/accounts/secret-reveals.ts), never in plain text.
 */
export interface SecretReveal {
  sessionIdHash: string;
  applicationId: number;
  sealedSecret: string;
  expiresAt: number;
}

/**
 * Reveals are held by createApplication and replaceApplicationSecret, with the secret's hash;
 * one held for a session and application replaces any already waiting for them.
 */
export interface SecretRevealStore {
  /** Deletes and returns the sealed secret in one statement, so it is handed out at most once. */
  takeSecretReveal(sessionIdHash: string, applicationId: number, now: number): Promise<string | undefined>;
}

export interface Storage {
  users: UserStore;
  applications: ApplicationStore;
  grants: GrantStore;
  codes: AuthorizationCodeStore;
  tokens: TokenStore;
  sessions: SessionStore;
  consents: ConsentStore;
  audit: AuditStore;
  portfolios: PortfolioStore;
  loginThrottle: LoginThrottleStore;
  secretReveals: SecretRevealStore;
  /** True when the database answers a trivial query. */
  isReachable(): Promise<boolean>;
  /**
   * True while the bearer API's reads and client look-ups may be answered from
   * memory: always on SQLite; on PostgreSQL while this instance hears other
   * instances' changes (false: every such read goes to the database).
   */
  readsFromMemory(): boolean;
  readonly kind: 'sqlite' | 'postgres';
  close(): Promise<void>;
}
