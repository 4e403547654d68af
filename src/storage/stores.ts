// Storage interfaces shaped by use (DESIGN §3): each method is one thing a flow
// needs, and any atomicity the flow relies on lives inside the method. A change and
// its audit event commit together: a method that changes what a person or an
// application can do takes the event (or a function building it from the new record).
import type {
  AccessToken, Application, ApplicationChanges, AuditEvent, AuditEventType, AuthorizationCode,
  ConnectedApplication, Consent, CountedAttempt, Grant, IssuedTokens, NewApplication, NewAuditEvent, NewSelfRegisteredClient,
  OwnedApplication, Portfolio, PortfolioFields, RefreshToken, SecretReveal, Session, User, UserCredentials,
} from '../domain/records.ts';
import type { Pause } from '../platform/pacer.ts';
import type { OpenDatabase } from './database.ts';

export interface UserStore {
  createUser(input: { email: string; name: string; passwordHash: string; now: number }, event: (user: User) => NewAuditEvent): Promise<User>;
  /** Email is matched case-insensitively. */
  findUserCredentials(email: string): Promise<UserCredentials | undefined>;
  findUserById(id: number): Promise<User | undefined>;
  /** The same password hashed anew (at a higher cost); the user notices nothing. */
  replacePasswordHash(userId: number, passwordHash: string, now: number): Promise<void>;
  /** False on a new database: start-up seeds demo data only then. */
  hasAnyUser(): Promise<boolean>;
}

export interface ApplicationStore {
  /** With `reveal`, the new secret is held for its one showing in the same transaction (SecretRevealStore). */
  createApplication(
    input: NewApplication, now: number, event: (application: OwnedApplication) => NewAuditEvent, reveal?: (application: OwnedApplication) => SecretReveal,
  ): Promise<OwnedApplication>;
  findApplicationByClientId(clientId: string): Promise<Application | undefined>;
  /** A client registering itself (RFC 7591): an application with no owner. */
  registerClient(input: NewSelfRegisteredClient, now: number, event: (application: Application) => NewAuditEvent): Promise<Application>;
  /**
   * The row of the client whose client_id is the URL of its metadata document, made
   * on first use and brought up to `input` (its current document) after; `event`
   * is recorded only when the row is made. The secret hash is kept from the first.
   */
  upsertMetadataDocumentClient(input: NewSelfRegisteredClient, now: number, event: (application: Application) => NewAuditEvent): Promise<Application>;
  findApplicationById(id: number): Promise<Application | undefined>;
  listApplicationsOwnedBy(ownerId: number): Promise<Application[]>;
  /** Returns undefined, and records nothing, when no application with that id belongs to ownerId. */
  updateApplication(
    id: number, ownerId: number, changes: ApplicationChanges, now: number, event: (updated: Application) => NewAuditEvent,
  ): Promise<Application | undefined>;
  /** The old secret stops working when this returns true; false: no such application. */
  replaceApplicationSecret(id: number, secretHash: string, now: number, event: NewAuditEvent, reveal?: SecretReveal): Promise<boolean>;
  /** Deletes the application with every grant, code and token it holds. False: none was owner's. */
  deleteApplication(id: number, ownerId: number, event: NewAuditEvent): Promise<boolean>;
}

export interface GrantStore {
  /** The live grant of this user for this application, created if there is none; ApplicationGoneError if the application went. */
  findOrCreateActiveGrant(userId: number, applicationId: number, scope: string[], now: number): Promise<Grant>;
  findGrant(id: number): Promise<Grant | undefined>;
  /** The user ends an application's access: the grant, every code and token descended from it, and the consent. */
  disconnectApplication(grantId: number, now: number, event: NewAuditEvent): Promise<void>;
  /**
   * Revokes one authorization: every token of the grant descended from the code
   * `codeHash`. The grant's other authorizations stay, unless nothing live is left.
   * With `codeHash` null, or while the grant holds a live refresh token of no known
   * code (migration 0005), the whole grant is revoked.
   */
  revokeAuthorization(grantId: number, codeHash: string | null, now: number, event: NewAuditEvent): Promise<void>;
  listConnectedApplications(userId: number): Promise<ConnectedApplication[]>;
}

export interface AuthorizationCodeStore {
  /** Throws ApplicationGoneError, with nothing saved, when the code's application (and so its grant) is gone. */
  saveAuthorizationCode(code: AuthorizationCode): Promise<void>;
  findAuthorizationCode(codeHash: string): Promise<AuthorizationCode | undefined>;
}

export interface TokenStore {
  /** Saves the tokens and marks the grant used; false, saving nothing, when the grant is revoked. */
  saveTokens(tokens: IssuedTokens): Promise<boolean>;
  /** An access token issued beside a refresh token is revoked with it, and gone with it or its grant. */
  findAccessToken(tokenHash: string): Promise<AccessToken | undefined>;
  /** The access token as findAccessToken would answer now, if held in memory; never reads the database. */
  recallAccessToken?(tokenHash: string): AccessToken | undefined;
  findRefreshToken(tokenHash: string): Promise<RefreshToken | undefined>;
  /** Rotation: marks `previousHash` rotated, if it and its grant are live, and saves `next` with it; false, writing nothing, otherwise. */
  rotateRefreshToken(previousHash: string, next: IssuedTokens, now: number): Promise<boolean>;
  /** Code exchange: marks the code used, if it is unused and its grant live, and saves `tokens` with it; false, writing nothing, otherwise. */
  redeemAuthorizationCode(codeHash: string, tokens: IssuedTokens, now: number): Promise<boolean>;
  /** Returns false, and records nothing, when the token was unknown or already revoked. */
  revokeAccessToken(tokenHash: string, now: number, event: NewAuditEvent): Promise<boolean>;
  /** Deletes tokens and codes expired or revoked before `olderThan`, in batches with `betweenBatches` between (purge.ts). */
  purgeExpired(now: number, olderThan: number, betweenBatches?: Pause): Promise<{ accessTokens: number; refreshTokens: number; codes: number }>;
}

export interface SessionStore {
  /** A sign-in records its `event` with the session; a session started by sign-up has none of its own. */
  createSession(session: Session, event?: NewAuditEvent): Promise<void>;
  findSession(idHash: string): Promise<Session | undefined>;
  touchSession(idHash: string, now: number): Promise<void>;
  /** Records `event` (a sign-out) only if the session still existed; says whether it did. */
  deleteSession(idHash: string, event?: NewAuditEvent): Promise<boolean>;
  /** Holds an out-of-band authorization's code, sealed for the session, replacing any held before. */
  holdNativeCode(idHash: string, sealedCode: string, expiresAt: number): Promise<void>;
  /** The code held for the session, once: it is forgotten as it is taken. */
  takeNativeCode(idHash: string, now: number): Promise<string | undefined>;
}

/** Browsers that have signed in to an account, by the hash of their device cookie. */
export interface DeviceStore {
  /** Whether the device has signed in to the account with this email (matched case-insensitively) at `since` or later. */
  isTrustedFor(deviceHash: string, email: string, since: number): Promise<boolean>;
  /** Records (or refreshes) that the device signed in to the account. */
  trust(deviceHash: string, userId: number, now: number): Promise<void>;
}

export interface ConsentStore {
  findConsent(userId: number, applicationId: number): Promise<Consent | undefined>;
  /** Replaces any earlier consent; ApplicationGoneError, writing nothing, if the application went. */
  rememberConsent(userId: number, applicationId: number, scope: string[], now: number, event: NewAuditEvent): Promise<void>;
  /** A denial withdraws any earlier consent; ApplicationGoneError, writing nothing, if the application went. */
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

/** How a key's failures turn into lockouts; see src/accounts/login-throttle.ts. */
export interface LockoutPolicy {
  /** A key not locked and without a failure for this long starts counting again from zero. */
  forgetAfterMs: number;
  /** How long to lock a key that has just reached `failures` failures; 0 for no lock. */
  lockoutMs(failures: number): number;
}

/** Sign-in failures counted per key (an account's email, a client address), with lockouts. */
export interface LoginThrottleStore {
  /** Counts one attempt as a failure and locks as `policy` says, unless a lock is in force: one atomic step. */
  countAttempt(key: string, now: number, policy: LockoutPolicy): Promise<CountedAttempt>;
  /** Takes back an allowed attempt that was no failure: one failure less, and the lock it set undone. */
  forgiveAttempt(key: string, attempt: CountedAttempt): Promise<void>;
  /** When the lock on `key` in force at `now` ends, or null; counts nothing. */
  lockedUntil(key: string, now: number): Promise<number | null>;
  clearFailures(key: string): Promise<void>;
  /** Deletes counters untouched since `olderThan` and not locked past it, in small batches. */
  forgetFailuresBefore(olderThan: number, betweenBatches?: Pause): Promise<number>;
}

/** Reveals are held by createApplication and replaceApplicationSecret, with the secret's hash. */
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
  devices: DeviceStore;
  isReachable(): Promise<boolean>;
  /** Whether cached reads may be answered from memory: on PostgreSQL only while other instances' changes are heard. */
  readsFromMemory(): boolean;
  readonly kind: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

/** Storage as the process opens it (open.ts): with its migrations and its database server's advice. */
export type OpenedStorage = Storage & Pick<OpenDatabase, 'migrate' | 'settingWarnings'>;
