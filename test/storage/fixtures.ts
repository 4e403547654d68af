// Small builders for contract tests: each returns records that satisfy every foreign key.
import assert from 'node:assert/strict';
import { hashCredential } from '../../src/platform/secrets.ts';
import type {
  AccessToken, OwnedApplication, AuditEventType, AuthorizationCode, Grant, IssuedTokens, NewAuditEvent, PortfolioFields, RefreshToken, User,
} from '../../src/domain/records.ts';
import type { Storage } from '../../src/storage/stores.ts';

export const T0 = Date.UTC(2026, 0, 1);
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

let sequence = 0;
function unique(label: string): string {
  sequence += 1;
  return `${label}_${process.pid}_${sequence}`;
}

/** The audit event a store method records with its change; attributed to nobody, so per-user listings leave it out. */
export function auditEvent(type: AuditEventType, createdAt = T0, detail: Record<string, unknown> = {}): NewAuditEvent {
  return { type, userId: null, applicationId: null, ip: null, detail, createdAt };
}

export function createUser(storage: Storage, email = `${unique('user')}@example.com`, name = 'Test User'): Promise<User> {
  return storage.users.createUser({ email, name, passwordHash: 'scrypt$hash', now: T0 }, () => auditEvent('user.created'));
}

/** What the Connections page does: the grant, its tokens and codes, and the consent go. */
export function revokeGrant(storage: Storage, grantId: number, now: number): Promise<void> {
  return storage.grants.disconnectApplication(grantId, now, auditEvent('grant.revoked', now));
}

export function createApplication(storage: Storage, owner: User, name = 'Budget App'): Promise<OwnedApplication> {
  return storage.applications.createApplication({
    ownerId: owner.id,
    name,
    clientId: unique('client'),
    secretHash: hashCredential(unique('secret')),
    redirectUris: ['https://app.example/callback', 'urn:ietf:wg:oauth:2.0:oob'],
    confidential: true,
    pkceRequired: false,
    scopes: ['read'],
  }, T0, () => auditEvent('application.created'));
}

/** Its owner deletes the application, as the settings page does. */
export async function deleteApplication(storage: Storage, application: OwnedApplication): Promise<void> {
  assert.equal(await storage.applications.deleteApplication(application.id, application.ownerId, auditEvent('application.deleted')), true);
}

/** A user who has authorized an application owned by someone else. */
export async function createGrant(storage: Storage): Promise<{ user: User; application: OwnedApplication; grant: Grant }> {
  const developer = await createUser(storage, undefined, 'Developer');
  const application = await createApplication(storage, developer);
  const user = await createUser(storage);
  const grant = await storage.grants.findOrCreateActiveGrant(user.id, application.id, ['read'], T0);
  return { user, application, grant };
}

export function rawToken(label: string): string {
  return `folio_${label}_${unique('raw')}`;
}

export function accessTokenFor(grant: Grant, raw = rawToken('at'), createdAt = T0): AccessToken {
  return {
    tokenHash: hashCredential(raw),
    grantId: grant.id,
    applicationId: grant.applicationId,
    userId: grant.userId,
    scope: ['read'],
    createdAt,
    expiresAt: createdAt + 30 * MINUTE,
    revokedAt: null,
    originCodeHash: null,
    resource: null,
  };
}

export function refreshTokenFor(grant: Grant, raw = rawToken('rt'), createdAt = T0): RefreshToken {
  return { ...accessTokenFor(grant, raw, createdAt), expiresAt: createdAt + 90 * DAY, rotatedAt: null };
}

export function tokenPairFor(grant: Grant, createdAt = T0): IssuedTokens {
  return { access: accessTokenFor(grant, undefined, createdAt), refresh: refreshTokenFor(grant, undefined, createdAt) };
}

export function codeFor(grant: Grant, raw = rawToken('ac'), createdAt = T0): AuthorizationCode {
  return {
    codeHash: hashCredential(raw),
    grantId: grant.id,
    applicationId: grant.applicationId,
    userId: grant.userId,
    redirectUri: 'https://app.example/callback',
    scope: ['read'],
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    createdAt,
    expiresAt: createdAt + 10 * MINUTE,
    consumedAt: null,
    resource: null,
  };
}

export function portfolioFields(overrides: Partial<PortfolioFields> = {}): PortfolioFields {
  return {
    name: 'Retirement',
    currencyCode: 'NZD',
    countryCode: 'NZ',
    financialYearEnd: '03-31',
    inceptionDate: '2009-01-01',
    tzName: 'Auckland',
    defaultSaleAllocationMethod: 'fifo',
    cgDiscount: null,
    rwtrRate: 33.0,
    trader: null,
    disableAutomaticTransactions: false,
    taxEntityType: 'individual',
    interestMethod: 'simple',
    applyCashAccountAdjustments: true,
    buyTradeSettlementDelay: 2,
    sellTradeSettlementDelay: null,
    accountForDelayedCashTransactions: false,
    tradeSyncCashAccountId: null,
    payoutSyncCashAccountId: 42,
    brokerEmailApiEnabled: true,
    brokerEmailKey: 'broker-key',
    externalIdentifier: null,
    ...overrides,
  };
}
