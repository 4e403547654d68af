// Row shapes as the database holds them. Booleans are 0/1 integers (better-sqlite3 cannot
// bind booleans); times are bigint Unix milliseconds, read back as numbers. A table holds its
// record's fields as snake-case columns (kysely/columns.ts); only the columns the record
// lacks, or stores encoded, are spelled out.
import type { Generated, Selectable } from 'kysely';
import type {
  AccessToken, Application, AuditEvent, AuthorizationCode, Consent, FailureCount, Grant, Portfolio, SecretReveal, Session,
  UserCredentials,
} from '../domain/records.ts';

type Flag = number;
type Millis = number;

/** `createdAt` → `created_at`. */
type ColumnOf<Field extends string> = Field extends `${infer First}${infer Rest}`
  ? `${First extends Lowercase<First> ? First : `_${Lowercase<First>}`}${ColumnOf<Rest>}`
  : Field;

/** The record's fields as columns. */
type Columns<Fields> = { [Field in keyof Fields & string as ColumnOf<Field>]: Fields[Field] };

/** The record's fields as columns, its scope space-separated as in OAuth's `scope` parameter. */
type ScopedColumns<Fields extends { scope: string[] }> = Columns<Omit<Fields, 'scope'>> & { scope: string };

export interface UsersTable extends Columns<Omit<UserCredentials, 'id'>> {
  id: Generated<number>;
  updated_at: Millis;
}

export interface ApplicationsTable extends Columns<Omit<Application, 'id' | 'redirectUris' | 'confidential' | 'pkceRequired' | 'scopes'>> {
  id: Generated<number>;
  /** JSON array of strings. */
  redirect_uris: string;
  confidential: Flag;
  pkce_required: Flag;
  /** Space-separated, as in OAuth's `scope` parameter. */
  scopes: string;
}

export interface GrantsTable extends ScopedColumns<Omit<Grant, 'id'>> {
  id: Generated<number>;
}

export type AuthorizationCodesTable = ScopedColumns<AuthorizationCode>;

export interface AccessTokensTable extends ScopedColumns<AccessToken> {
  /** The refresh token issued beside this one, whose revocation or deletion ends it too (migration 0010). */
  refresh_token_hash: string | null;
}

export interface RefreshTokensTable extends Omit<AccessTokensTable, 'refresh_token_hash'> {
  rotated_at: Millis | null;
}

export interface SessionsTable extends Columns<Session> {
  /** An out-of-band authorization's code, sealed for this session, waiting to be shown once. */
  native_code: string | null;
  native_code_expires_at: Millis | null;
}

/** Browsers that have signed in to an account (migration 0014). */
export interface TrustedDevicesTable {
  device_hash: string;
  user_id: number;
  last_used_at: Millis;
}

export type ConsentsTable = ScopedColumns<Consent>;

export interface AuditEventsTable extends Columns<Omit<AuditEvent, 'id' | 'type' | 'detail'>> {
  id: Generated<number>;
  type: string;
  /** JSON object. */
  detail: string;
}

type PortfolioFlags = 'trader' | 'disableAutomaticTransactions' | 'applyCashAccountAdjustments' | 'accountForDelayedCashTransactions' | 'brokerEmailApiEnabled';

export interface PortfoliosTable extends Columns<Omit<Portfolio, 'id' | PortfolioFlags>> {
  id: Generated<number>;
  trader: Flag | null;
  disable_automatic_transactions: Flag;
  apply_cash_account_adjustments: Flag;
  account_for_delayed_cash_transactions: Flag;
  broker_email_api_enabled: Flag;
}

/** Per-account and per-address sign-in lockouts; read and written by the login rate limiter. */
export interface LoginFailuresTable extends Columns<FailureCount> {
  key: string;
  updated_at: Millis;
}

/** Secrets sealed for one display (SecretRevealStore). */
export type SecretRevealsTable = Columns<SecretReveal>;

export interface Database {
  users: UsersTable;
  applications: ApplicationsTable;
  grants: GrantsTable;
  authorization_codes: AuthorizationCodesTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  sessions: SessionsTable;
  consents: ConsentsTable;
  audit_events: AuditEventsTable;
  portfolios: PortfoliosTable;
  login_failures: LoginFailuresTable;
  secret_reveals: SecretRevealsTable;
  trusted_devices: TrustedDevicesTable;
}

export type ApplicationRow = Selectable<ApplicationsTable>;
export type GrantRow = Selectable<GrantsTable>;
export type AuthorizationCodeRow = Selectable<AuthorizationCodesTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type RefreshTokenRow = Selectable<RefreshTokensTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type PortfolioRow = Selectable<PortfoliosTable>;

export type StorageKind = 'sqlite' | 'postgres';
