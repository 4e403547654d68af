// An app on a fresh in-memory database with a fixed clock, and the few steps
// most HTTP tests need: people, applications, sign-in, consent, tokens.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { type PasswordCost, hashPassword } from '../../src/platform/password.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateClientId, generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import type { Application, NewAuditEvent, User } from '../../src/domain/records.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { portfolioFields } from '../../src/demo/portfolio-fields.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import { createTestStorage } from './storage.ts';

export const PASSWORD = 'correct horse battery staple';
/**
 * Test apps hash passwords at a far lower scrypt cost than a deployment's, since
 * sign-in tests check hundreds; the cost is read back from each stored hash.
 * `passwordCost` in TestAppOptions gives an app the real one.
 */
export const TEST_PASSWORD_COST = { N: 2 ** 10, r: 8, p: 1 };
let passwordHash: Promise<string> | undefined;

export interface TestApp {
  app: FastifyInstance;
  storage: OpenedStorage;
  clock: FixedClock;
  baseUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Another test app's storage, for two instances over one database; its owner closes it. */
  storage?: OpenedStorage;
  rateLimitKeyPrefix?: string;
  /** The app's password cost: TEST_PASSWORD_COST unless given. */
  passwordCost?: PasswordCost;
  /** How long a client ID metadata document may take to arrive. */
  clientDocumentTimeoutMs?: number;
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const storage = options.storage ?? await createTestStorage();
  const clock = new FixedClock(Date.UTC(2026, 0, 15, 9, 0, 0));
  const config = loadConfig({ FOLIO_LOG_LEVEL: 'silent', FOLIO_BASE_URL: 'http://folio.test', ...env });
  const app = await buildApp({
    config, storage, clock, random: cryptoRandom, logger: createLogger(config), rateLimitKeyPrefix: options.rateLimitKeyPrefix,
    passwordCost: options.passwordCost ?? TEST_PASSWORD_COST, clientDocumentTimeoutMs: options.clientDocumentTimeoutMs,
  });
  const closeStorage = options.storage === undefined;
  return { app, storage, clock, baseUrl: config.baseUrl, close: async () => { await app.close(); if (closeStorage) await storage.close(); } };
}

/** A test app over an in-memory SQLite database whose tables the test reads itself. */
export async function createTestAppWithDatabase(env: Record<string, string> = {}, options: Omit<TestAppOptions, 'storage'> = {}) {
  const database = openSqlite(':memory:');
  const storage = createStorage(database);
  await storage.migrate();
  const app = await createTestApp(env, { ...options, storage });
  const t: TestApp = { ...app, close: async () => { await app.close(); await storage.close(); } };
  return { t, db: database.db };
}

let userCount = 0;
export async function createUser(t: TestApp, name = 'Ada Investor'): Promise<User> {
  passwordHash ??= hashPassword(PASSWORD, TEST_PASSWORD_COST);
  const email = `user${++userCount}-${process.pid}@example.test`;
  const now = t.clock.now();
  // Attributed to nobody, so the events a test looks for are the only ones the user has.
  return t.storage.users.createUser({ email, name, passwordHash: await passwordHash, now }, () => ({
    type: 'user.created', userId: null, applicationId: null, ip: null, detail: {}, createdAt: now,
  }));
}

export interface TestClient {
  application: Application;
  clientId: string;
  clientSecret: string;
}

export async function createClient(t: TestApp, owner: User, options: Partial<Pick<Application, 'confidential' | 'pkceRequired' | 'redirectUris' | 'name'>> = {}): Promise<TestClient> {
  const clientSecret = generateCredential('clientSecret', cryptoRandom);
  const confidential = options.confidential ?? true;
  const application = await t.storage.applications.createApplication({
    ownerId: owner.id,
    name: options.name ?? 'Tax Helper',
    clientId: generateClientId(cryptoRandom),
    secretHash: hashCredential(clientSecret),
    redirectUris: options.redirectUris ?? ['https://client.example/callback'],
    confidential,
    pkceRequired: options.pkceRequired ?? !confidential,
    scopes: ['read'],
  }, t.clock.now(), applicationCreated(t));
  return { application, clientId: application.clientId, clientSecret };
}

/** The audit event of an application created directly in storage. */
export function applicationCreated(t: TestApp): (application: Application) => NewAuditEvent {
  const now = t.clock.now();
  return (application) => ({
    type: 'application.created', userId: application.ownerId, applicationId: application.id, ip: null, detail: { name: application.name }, createdAt: now,
  });
}

export async function createPortfolio(t: TestApp, owner: User, name: string) {
  return t.storage.portfolios.createPortfolio(owner.id, portfolioFields({ name, countryCode: 'AU', now: t.clock.now() }), t.clock.now());
}

export function cookiesFrom(response: LightMyRequestResponse): Record<string, string> {
  const jar: Record<string, string> = {};
  for (const cookie of response.cookies) jar[cookie.name] = cookie.value;
  return jar;
}

export function cookieHeader(jar: Record<string, string>): string {
  return Object.entries(jar).filter(([, value]) => value !== '').map(([name, value]) => `${name}=${value}`).join('; ');
}

/**
 * An authorization error Folio offers by a link on its page rather than by a redirect
 * (RFC 9700 §4.11.2): checks that it is such a page and returns where the link goes.
 */
export function continuationOf(response: LightMyRequestResponse, status = 400): URL {
  assert.equal(response.statusCode, status, response.body.slice(0, 300));
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.equal(response.headers.location, undefined);
  const match = /<a class="button" href="([^"]+)">Return to /.exec(response.body);
  assert.ok(match !== null, 'the page links back to the application');
  return new URL(match[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'"));
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (match === null) throw new Error(`no hidden field ${name}`);
  return match[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

export const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

/** Signs in through the real form; returns the cookie jar with the session. */
export async function signIn(t: TestApp, user: User, jar: Record<string, string> = {}): Promise<Record<string, string>> {
  const page = await t.app.inject({ method: 'GET', url: '/login', headers: { cookie: cookieHeader(jar) } });
  Object.assign(jar, cookiesFrom(page));
  const response = await t.app.inject({
    method: 'POST', url: '/login',
    ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: '/', email: user.email, password: PASSWORD }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
  });
  if (response.statusCode !== 303) throw new Error(`sign-in failed: ${response.statusCode}`);
  Object.assign(jar, cookiesFrom(response));
  return jar;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(client: TestClient, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.application.redirectUris[0]!, state: 'xyz-state', ...extra });
  return `/oauth2/authorize?${params}`;
}

/** Runs authorize → consent (approve) for a signed-in jar; returns the redirect Location. */
export async function approve(t: TestApp, jar: Record<string, string>, url: string): Promise<URL> {
  const consent = await t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } });
  if (consent.statusCode === 302) return new URL(consent.headers.location as string);
  if (consent.statusCode !== 200) throw new Error(`authorize answered ${consent.statusCode}: ${consent.body.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const match of consent.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = hiddenField(match[0], match[1]!);
  }
  const answer = await t.app.inject({ method: 'POST', url: '/oauth2/authorize', ...form({ ...fields, decision: 'approve' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
  if (answer.statusCode !== 303) throw new Error(`consent answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`);
  return new URL(answer.headers.location as string);
}

/** A user who approved `client`: returns the code and, for PKCE clients, the verifier. */
export async function obtainCode(t: TestApp, client: TestClient, user: User, extra: Record<string, string> = {}) {
  const jar = await signIn(t, user);
  const pkce = pkcePair();
  const withPkce = client.application.pkceRequired ? { code_challenge: pkce.challenge, code_challenge_method: 'S256', ...extra } : extra;
  const location = await approve(t, jar, authorizeUrl(client, withPkce));
  return { code: location.searchParams.get('code')!, location, verifier: pkce.verifier, jar };
}

export async function tokenRequest(t: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/oauth2/token', ...form(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
}

/** Code → tokens for a confidential client; returns the parsed token response. */
export async function obtainTokens(t: TestApp, client: TestClient, user: User) {
  const { code, verifier } = await obtainCode(t, client, user);
  const fields: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, client_id: client.clientId };
  if (client.application.confidential) fields.client_secret = client.clientSecret;
  if (client.application.pkceRequired) fields.code_verifier = verifier;
  const response = await tokenRequest(t, fields);
  if (response.statusCode !== 200) throw new Error(`token exchange failed: ${response.body}`);
  return response.json() as { access_token: string; refresh_token: string; expires_in: number; created_at: number; token_type: string };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

/** An RFC 6749 §5.2 error answer: this status, a JSON body of exactly error and error_description, this code. */
export function assertError(response: LightMyRequestResponse, status: number, error: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.deepEqual(Object.keys(response.json()).sort(), ['error', 'error_description']);
  assert.equal(response.json().error, error);
}
