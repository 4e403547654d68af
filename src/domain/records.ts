// The records every part of Folio passes around: what storage keeps and hands back.
// Times are Unix milliseconds; storage converts to and from column types. Hashes
// are lowercase hex SHA-256 of the opaque value: the value itself is never stored.

export interface User {
  id: number;
  email: string;
  name: string;
  createdAt: number;
}

export interface UserCredentials extends User {
  passwordHash: string;
}

/**
 * How a client came to be known: a person registered it on the API settings page
 * or the CLI; it registered itself (RFC 7591); or its client_id is the URL of its
 * client ID metadata document. Only a person's application has an owner.
 */
export type ClientRegistration = 'person' | 'dynamic' | 'metadata_document';

export interface Application {
  id: number;
  /** Null for a client no person registered. */
  ownerId: number | null;
  registration: ClientRegistration;
  name: string;
  clientId: string;
  secretHash: string;
  redirectUris: string[];
  confidential: boolean;
  pkceRequired: boolean;
  scopes: string[];
  createdAt: number;
  updatedAt: number;
}

/** An application a person registered, and so owns. */
export type OwnedApplication = Application & { ownerId: number; registration: 'person' };

export type NewApplication = Omit<Application, 'id' | 'createdAt' | 'updatedAt' | 'ownerId' | 'registration'> & { ownerId: number };

/** A client that registers itself (RFC 7591 §3) or is read from its metadata document: no owner. */
export type NewSelfRegisteredClient = Omit<NewApplication, 'ownerId'>;

export type ApplicationChanges = Partial<
  Pick<Application, 'name' | 'redirectUris' | 'confidential' | 'pkceRequired'>
>;

/** One user's authorization of one application: every code and token descends from a grant. */
export interface Grant {
  id: number;
  userId: number;
  applicationId: number;
  scope: string[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** A grant as the "connected applications" page lists it. */
export interface ConnectedApplication {
  grantId: number;
  applicationId: number;
  applicationName: string;
  clientId: string;
  /** Null for a client no person registered. */
  ownerName: string | null;
  registration: ClientRegistration;
  scope: string[];
  grantedAt: number;
  lastUsedAt: number | null;
}

export interface AuthorizationCode {
  codeHash: string;
  grantId: number;
  applicationId: number;
  userId: number;
  redirectUri: string;
  scope: string[];
  /** RFC 7636 S256 challenge, or null when the request carried none. */
  codeChallenge: string | null;
  createdAt: number;
  expiresAt: number;
  consumedAt: number | null;
  /** The RFC 8707 resource the request asked for, which its tokens are bound to; null when none was asked. */
  resource: string | null;
}

export interface AccessToken {
  tokenHash: string;
  grantId: number;
  applicationId: number;
  userId: number;
  scope: string[];
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
  /**
   * The hash of the authorization code this token descends from, through any
   * number of refreshes: the one authorization a replay, reuse or revocation
   * revokes. Null for client_credentials tokens and those issued before it was kept.
   */
  originCodeHash: string | null;
  /**
   * The RFC 8707 resource the token is for (its audience); null when issued
   * without one, which only the portfolio API accepts. A refresh token keeps the
   * resource its authorization was granted for, so a later refresh cannot widen it.
   */
  resource: string | null;
}

export interface RefreshToken extends AccessToken {
  /** Idle expiry: refresh tokens die after 90 days unused. */
  expiresAt: number;
  /** Set when this token was exchanged for a new pair (rotation). */
  rotatedAt: number | null;
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

/** The tokens of one issue, and its audit event: written together or not at all. */
export interface IssuedTokens {
  access: AccessToken;
  refresh?: RefreshToken;
  event?: NewAuditEvent;
}

export interface Session {
  idHash: string;
  userId: number;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute expiry; idle expiry is computed from lastSeenAt by the caller. */
  expiresAt: number;
}

export interface Consent {
  userId: number;
  applicationId: number;
  scope: string[];
  createdAt: number;
}

export type AuditEventType =
  | 'sign_in.success'
  | 'sign_in.failure'
  | 'sign_in.locked'
  | 'sign_out'
  | 'consent.granted'
  | 'consent.denied'
  | 'token.issued'
  | 'token.refreshed'
  | 'token.revoked'
  | 'grant.revoked'
  | 'code.replayed'
  | 'refresh_token.reused'
  | 'refresh_token.raced'
  | 'application.created'
  | 'application.registered'
  | 'application.updated'
  | 'application.secret_rotated'
  | 'application.deleted'
  | 'user.created';

export interface AuditEvent {
  id: number;
  type: AuditEventType;
  userId: number | null;
  applicationId: number | null;
  ip: string | null;
  /** Small JSON object; never a secret. */
  detail: Record<string, unknown>;
  createdAt: number;
}

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

/** The fields of DESIGN §5 that a person sets; the rest are derived or defaulted. */
export interface PortfolioFields {
  name: string;
  currencyCode: string;
  countryCode: string;
  /** "MM-DD" */
  financialYearEnd: string;
  /** "YYYY-MM-DD" */
  inceptionDate: string;
  tzName: string;
  defaultSaleAllocationMethod: string;
  cgDiscount: string | null;
  rwtrRate: number | null;
  trader: boolean | null;
  disableAutomaticTransactions: boolean;
  taxEntityType: string | null;
  interestMethod: string;
  applyCashAccountAdjustments: boolean;
  buyTradeSettlementDelay: number | null;
  sellTradeSettlementDelay: number | null;
  accountForDelayedCashTransactions: boolean;
  tradeSyncCashAccountId: number | null;
  payoutSyncCashAccountId: number | null;
  brokerEmailApiEnabled: boolean;
  brokerEmailKey: string | null;
  externalIdentifier: string | null;
}

export interface Portfolio extends PortfolioFields {
  id: number;
  ownerId: number;
  createdAt: number;
  updatedAt: number;
}

/** Sign-in failures counted for one key (an account's email, a client address). */
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
