// POST /oauth2/register (RFC 7591 §3): open, guarded by an initial access token, or
// not served, by configuration; every refusal an RFC 7591 §3.2.2 error with nothing stored.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { REGISTRATIONS_PER_HOUR, REGISTRATION_BODY_LIMIT } from '../../src/http/routes/registration.ts';
import type { Database } from '../../src/storage/schema.ts';
import {
  type TestApp, assertError, authorizeUrl, createTestAppWithDatabase, createUser, obtainCode, obtainTokens, pkcePair, signIn, tokenRequest,
} from '../support/app.ts';
import { getPage } from '../support/pages.ts';

const TOKEN = 'initial-access-token-0123456789abcdef';
const METADATA = { client_name: 'Desk Assistant', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };

let t: TestApp;
let db: Kysely<Database>;
afterEach(async () => t?.close());

/** A test app over a database this test can look into. */
async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const started = await createTestAppWithDatabase(env);
  db = started.db;
  return started.t;
}

function register(body: unknown, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
  return t.app.inject({
    method: 'POST', url: '/oauth2/register', remoteAddress, headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Self-registered applications stored, and their audit events: a refusal leaves neither. */
async function registrations(): Promise<number> {
  const rows = await db.selectFrom('applications').select('id').where('registration', '=', 'dynamic').execute();
  const events = await db.selectFrom('audit_events').select('id').where('type', '=', 'application.registered').execute();
  assert.equal(events.length, rows.length);
  return rows.length;
}

describe('POST /oauth2/register, open (the default outside production)', () => {
  it('registers a public client with PKCE required and no secret, answering 201 no-store', async () => {
    t = await start();
    const response = await register(METADATA);
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['client_id', 'client_id_issued_at', 'client_name', 'grant_types', 'redirect_uris', 'response_types', 'scope', 'token_endpoint_auth_method']);
    assert.equal(body.client_id_issued_at, Math.floor(t.clock.now() / 1000));
    assert.deepEqual([body.client_name, body.redirect_uris, body.token_endpoint_auth_method, body.scope], ['Desk Assistant', METADATA.redirect_uris, 'none', 'read']);
    const stored = (await t.storage.applications.findApplicationByClientId(body.client_id))!;
    assert.deepEqual([stored.registration, stored.ownerId, stored.confidential, stored.pkceRequired], ['dynamic', null, false, true]);
  });

  it('gives a confidential client its secret once, which then authenticates it at the token endpoint', async () => {
    t = await start();
    const response = await register({ ...METADATA, token_endpoint_auth_method: 'client_secret_post' });
    assert.equal(response.statusCode, 201, response.body);
    const { client_id: clientId, client_secret: clientSecret, client_secret_expires_at: expiresAt } = response.json();
    assert.match(clientSecret, /^folio_cs_/);
    assert.equal(expiresAt, 0);
    const application = (await t.storage.applications.findApplicationByClientId(clientId))!;
    assert.equal(application.confidential, true);
    const user = await createUser(t);
    const tokens = await obtainTokens(t, { application, clientId, clientSecret }, user);
    assert.match(tokens.access_token, /^folio_at_/);
    // A self-registered client acts for a signed-in person only.
    assertError(await tokenRequest(t, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }), 400, 'unauthorized_client');
  });

  it('is advertised in the RFC 8414 metadata with client ID metadata documents, and S256 alone', async () => {
    t = await start();
    const metadata = (await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    assert.equal(metadata.registration_endpoint, 'http://folio.test/oauth2/register');
    assert.equal(metadata.client_id_metadata_document_supported, true);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  });
});

describe('POST /oauth2/register refuses bad requests, storing nothing', () => {
  const cases: [string, () => Promise<LightMyRequestResponse>, number, string][] = [
    ['a body that is not JSON', () => register('{"redirect_uris": ['), 400, 'invalid_client_metadata'],
    ['a JSON array', () => register([METADATA]), 400, 'invalid_client_metadata'],
    ['a form body', () => t.app.inject({ method: 'POST', url: '/oauth2/register', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'redirect_uris=http://127.0.0.1/cb' }), 400, 'invalid_client_metadata'],
    ['no body', () => t.app.inject({ method: 'POST', url: '/oauth2/register' }), 400, 'invalid_client_metadata'],
    ['an oversized body', () => register({ ...METADATA, padding: 'x'.repeat(REGISTRATION_BODY_LIMIT) }), 413, 'payload_too_large'],
    ['no redirect URIs', () => register({ client_name: 'X' }), 400, 'invalid_redirect_uri'],
    ['an http redirect URI off loopback', () => register({ ...METADATA, redirect_uris: ['http://evil.example/cb'] }), 400, 'invalid_redirect_uri'],
    ['a redirect URI with a fragment', () => register({ ...METADATA, redirect_uris: ['https://app.example/cb#x'] }), 400, 'invalid_redirect_uri'],
    ['an unknown authentication method', () => register({ ...METADATA, token_endpoint_auth_method: 'private_key_jwt' }), 400, 'invalid_client_metadata'],
    ['client_credentials', () => register({ ...METADATA, grant_types: ['client_credentials'] }), 400, 'invalid_client_metadata'],
    ['a type coercion would accept', () => register({ ...METADATA, redirect_uris: 'http://127.0.0.1/callback' }), 400, 'invalid_redirect_uri'],
  ];
  for (const [what, send, status, error] of cases) {
    it(`refuses ${what} with ${status} ${error}`, async () => {
      t = await start();
      const response = await send();
      assertError(response, status, error);
      assert.deepEqual(await registrations(), 0);
    });
  }
});

describe('POST /oauth2/register guarded by an initial access token', () => {
  it('registers with the token, and refuses a missing or wrong one with 401 invalid_token and a Bearer challenge', async () => {
    t = await start({ FOLIO_REGISTRATION: 'token', FOLIO_REGISTRATION_TOKEN: TOKEN });
    const missing = await register(METADATA);
    assertError(missing, 401, 'invalid_token');
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="folio"');
    const wrong = await register(METADATA, { authorization: `Bearer ${TOKEN}x` });
    assertError(wrong, 401, 'invalid_token');
    assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
    assert.equal(await registrations(), 0);
    assert.equal((await register(METADATA, { authorization: `Bearer ${TOKEN}` })).statusCode, 201);
    assert.equal(await registrations(), 1);
  });
});

describe('POST /oauth2/register when registration is off', () => {
  it('is not served (404) and not advertised', async () => {
    t = await start({ FOLIO_REGISTRATION: 'off' });
    assertError(await register(METADATA), 404, 'not_found');
    const metadata = (await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    assert.equal(metadata.registration_endpoint, undefined);
  });
});

describe('POST /oauth2/register is rate limited per address', () => {
  it(`accepts ${REGISTRATIONS_PER_HOUR} an hour, then answers 429 with Retry-After until the hour is over`, async () => {
    t = await start();
    for (let index = 0; index < REGISTRATIONS_PER_HOUR; index++) assert.equal((await register(METADATA)).statusCode, 201);
    const refused = await register(METADATA);
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(await registrations(), REGISTRATIONS_PER_HOUR);
    t.clock.advance(3_600_000);
    assert.equal((await register(METADATA)).statusCode, 201);
  });

  it('counts an IPv6 /64 as one address, since its holder can change address at will', async () => {
    t = await start();
    for (let index = 0; index < REGISTRATIONS_PER_HOUR; index++) {
      assert.equal((await register(METADATA, {}, `2001:db8:1:2::${(index + 1).toString(16)}`)).statusCode, 201);
    }
    assertError(await register(METADATA, {}, '2001:db8:1:2:ffff::1'), 429, 'rate_limited');
    assert.equal((await register(METADATA, {}, '2001:db8:1:3::1')).statusCode, 201);
  });
});


describe('a self-registered client at the consent page', () => {
  it('warns of localhost by the address this request returns to, not by the registered list', async () => {
    t = await start();
    const registered = (await register({ ...METADATA, redirect_uris: ['https://helper.example/cb', 'http://127.0.0.1/callback'] })).json();
    const application = (await t.storage.applications.findApplicationByClientId(registered.client_id))!;
    const client = { application, clientId: registered.client_id, clientSecret: '' };
    const jar = await signIn(t, await createUser(t));
    const pkce = { code_challenge: pkcePair().challenge, code_challenge_method: 'S256' };
    const toLoopback = await getPage(t, jar, authorizeUrl(client, { ...pkce, redirect_uri: 'http://127.0.0.1:4567/callback' }));
    assert.match(toLoopback.body, /returns to this computer \(localhost\)/);
    const toHttps = await getPage(t, jar, authorizeUrl(client, pkce));
    assert.equal(toHttps.statusCode, 200);
    assert.doesNotMatch(toHttps.body, /returns to this computer/);
  });

  it('is named with a warning that it registered itself, and asked every time even when confidential', async () => {
    t = await start();
    const registered = (await register({ ...METADATA, client_name: 'Helper <b>', token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://helper.example/cb'] })).json();
    const application = (await t.storage.applications.findApplicationByClientId(registered.client_id))!;
    const user = await createUser(t);
    const client = { application, clientId: registered.client_id, clientSecret: registered.client_secret };
    await obtainTokens(t, client, user);
    const { jar } = await obtainCode(t, client, user);
    const pkce = pkcePair();
    const page = await getPage(t, jar, authorizeUrl(client, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
    assert.equal(page.statusCode, 200, 'asked again despite the remembered consent');
    assert.match(page.body, /Helper &lt;b&gt;/);
    assert.match(page.body, /Registered itself/);
    assert.match(page.body, /registered itself with Folio: its name is its own claim/);
    assert.match(page.body, /sent back to <strong>helper\.example<\/strong>/);
    assert.doesNotMatch(page.body, /localhost/);
    const connections = await getPage(t, jar, '/settings/connections');
    assert.match(connections.body, /Helper &lt;b&gt;<\/strong><br><span class="muted">Registered itself/);
  });
});
