// Row shapes as the database holds them. Booleans are 0/1 integers in both
// dialects (better-sqlite3 cannot bind booleans) and times are bigint Unix
// milliseconds, read back as JS numbers.
import type { Generated, Selectable } from 'kysely';

type Flag = number;
type Millis = number;

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  password_hash: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface ApplicationsTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  client_id: string;
  secret_hash: string;
  /** JSON array of strings. */
  redirect_uris: string;
  confidential: Flag;
  pkce_required: Flag;
  /** Space-separated, as in OAuth's `scope` parameter. */
  scopes: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface GrantsTable {
  id: Generated<number>;
  user_id: number;
  application_id: number;
  scope: string;
  created_at: Millis;
  last_used_at: Millis | null;
  revoked_at: Millis | null;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  grant_id: number;
  application_id: number;
  user_id: number;
  redirect_uri: string;
  scope: string;
  code_challenge: string | null;
  created_at: Millis;
  expires_at: Millis;
  consumed_at: Millis | null;
}

export interface AccessTokensTable {
  token_hash: string;
  grant_id: number;
  application_id: number;
  user_id: number;
  scope: string;
  created_at: Millis;
  expires_at: Millis;
  revoked_at: Millis | null;
  origin_code_hash: string | null;
  /** The refresh token issued beside this one, whose revocation or deletion ends it too (migration 0010). */
  refresh_token_hash: string | null;
}

export interface RefreshTokensTable extends Omit<AccessTokensTable, 'refresh_token_hash'> {
  rotated_at: Millis | null;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: Millis;
  last_seen_at: Millis;
  expires_at: Millis;
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

export interface ConsentsTable {
  user_id: number;
  application_id: number;
  scope: string;
  created_at: Millis;
}

export interface AuditEventsTable {
  id: Generated<number>;
  type: string;
  user_id: number | null;
  application_id: number | null;
  ip: string | null;
  /** JSON object. */
  detail: string;
  created_at: Millis;
}

export interface PortfoliosTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  currency_code: string;
  country_code: string;
  financial_year_end: string;
  inception_date: string;
  tz_name: string;
  default_sale_allocation_method: string;
  cg_discount: string | null;
  rwtr_rate: number | null;
  trader: Flag | null;
  disable_automatic_transactions: Flag;
  tax_entity_type: string | null;
  interest_method: string;
  apply_cash_account_adjustments: Flag;
  buy_trade_settlement_delay: number | null;
  sell_trade_settlement_delay: number | null;
  account_for_delayed_cash_transactions: Flag;
  trade_sync_cash_account_id: number | null;
  payout_sync_cash_account_id: number | null;
  broker_email_api_enabled: Flag;
  broker_email_key: string | null;
  external_identifier: string | null;
  created_at: Millis;
  updated_at: Millis;
}

/** Per-account and per-address sign-in lockouts; read and written by the login rate limiter. */
export interface LoginFailuresTable {
  key: string;
  failures: number;
  locked_until: Millis | null;
  updated_at: Millis;
}

/** Secrets sealed for one display (SecretRevealStore). */
export interface SecretRevealsTable {
  session_id_hash: string;
  application_id: number;
  sealed_secret: string;
  expires_at: Millis;
}

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

export type UserRow = Selectable<UsersTable>;
export type ApplicationRow = Selectable<ApplicationsTable>;
export type GrantRow = Selectable<GrantsTable>;
export type AuthorizationCodeRow = Selectable<AuthorizationCodesTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type RefreshTokenRow = Selectable<RefreshTokensTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type PortfolioRow = Selectable<PortfoliosTable>;

export type StorageKind = 'sqlite' | 'postgres';
