// RFC 6749 §3.2, §2.3, §4.1.3, §5.1 and §5.2 at the token endpoint, through app.inject.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite-database.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, basic, bearer, createClient, createTestApp, createUser,
  obtainCode, tokenRequest,
  applicationCreated,
} from '../support/app.ts';

const START_SECONDS = Date.UTC(2026, 0, 15, 9, 0, 0) / 1000;

function codeFields(client: TestClient, code: string, verifier?: string): Record<string, string> {
  const fields: Record<string, string> = {
    grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, client_id: client.clientId,
  };
  if (client.application.confidential) fields.client_secret = client.clientSecret;
  if (verifier !== undefined) fields.code_verifier = verifier;
  return fields;
}

function multipart(fields: Record<string, string>) {
  const boundary = `----folio-test-${randomBytes(8).toString('hex')}`;
  const parts = Object.entries(fields).map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `${parts.join('')}--${boundary}--\r\n`,
  };
}

function assertOAuthError(response: LightMyRequestResponse, status: number, error: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, 'string');
}

async function apiStatus(t: TestApp, accessToken: string): Promise<number> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(accessToken) });
  return response.statusCode;
}

describe('token endpoint', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    client = await createClient(t, user);
  });
  afterEach(async () => { await t.close(); });

  describe('RFC 6749 §3.2 request bodies (DESIGN §2: urlencoded, multipart, JSON)', () => {
    it('accepts an application/x-www-form-urlencoded body', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, codeFields(client, code));
      assert.equal(response.statusCode, 200, response.body);
    });

    it('accepts a form whose Content-Type carries a charset with or without a space (Authlib sends ";charset=UTF-8")', async () => {
      for (const contentType of ['application/x-www-form-urlencoded;charset=UTF-8', 'application/x-www-form-urlencoded; charset=utf-8']) {
        const response = await t.app.inject({
          method: 'POST', url: '/oauth2/token', headers: { 'content-type': contentType },
          payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
        });
        assert.equal(response.statusCode, 200, `${contentType}: ${response.body}`);
      }
    });

    it('accepts a multipart/form-data body', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await t.app.inject({ method: 'POST', url: '/oauth2/token', ...multipart(codeFields(client, code)) });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(await apiStatus(t, response.json().access_token), 200);
    });

    it('accepts an application/json body', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await t.app.inject({
        method: 'POST', url: '/oauth2/token',
        headers: { 'content-type': 'application/json' }, payload: JSON.stringify(codeFields(client, code)),
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(await apiStatus(t, response.json().access_token), 200);
    });

    it('ignores unknown extra parameters', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, { ...codeFields(client, code), foo: 'bar', nonce: 'n-1', response_type: 'token' });
      assert.equal(response.statusCode, 200, response.body);
    });

    it('refuses a parameter given twice with invalid_request, before the code is spent', async () => {
      const { code } = await obtainCode(t, client, user);
      const fields = codeFields(client, code);
      const payload = `${new URLSearchParams(fields)}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`;
      const repeated = await t.app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      assertOAuthError(repeated, 400, 'invalid_request');
      assert.match(repeated.json().error_description, /redirect_uri/);
      assert.equal((await tokenRequest(t, fields)).statusCode, 200);
    });

    it('refuses a parameter given twice in a multipart body', async () => {
      const { code } = await obtainCode(t, client, user);
      const body = multipart(codeFields(client, code));
      const boundary = /boundary=(.*)$/.exec(body.headers['content-type'])![1]!;
      const payload = body.payload.replace(`--${boundary}--`, `--${boundary}\r\nContent-Disposition: form-data; name="code"\r\n\r\nother\r\n--${boundary}--`);
      const response = await t.app.inject({ method: 'POST', url: '/oauth2/token', headers: body.headers, payload });
      assertOAuthError(response, 400, 'invalid_request');
    });

    it('refuses a key given twice in a JSON body, though JSON.parse would keep the last', async () => {
      const { code } = await obtainCode(t, client, user);
      const fields = codeFields(client, code);
      const payload = JSON.stringify(fields).replace(/}$/, ', "redirect_uri" : "https://evil.example/cb"}');
      const response = await t.app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/json' }, payload });
      assertOAuthError(response, 400, 'invalid_request');
      assert.match(response.json().error_description, /redirect_uri/);
      const nested = JSON.stringify({ ...fields, note: '{"code": 1}' });
      assert.equal((await t.app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/json' }, payload: nested })).statusCode, 200);
    });
  });

  describe('RFC 6749 §2.3 client authentication', () => {
    it('accepts client_secret_basic, URL-decoding a client_id with ":", "+" and "%"', async () => {
      const clientSecret = generateCredential('clientSecret', cryptoRandom);
      const application = await t.storage.applications.createApplication({
        ownerId: user.id, name: 'Odd Id', clientId: 'my:client+id%', secretHash: hashCredential(clientSecret),
        redirectUris: ['https://odd.example/cb'], confidential: true, pkceRequired: false, scopes: ['read'],
      }, t.clock.now(), applicationCreated(t));
      const odd: TestClient = { application, clientId: application.clientId, clientSecret };
      const { code } = await obtainCode(t, odd, user);
      const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: 'https://odd.example/cb' }, basic(odd.clientId, clientSecret));
      assert.equal(response.statusCode, 200, response.body);
    });

    it('decodes "+" in Basic credentials as a space, as form-urlencoding says', async () => {
      const clientSecret = generateCredential('clientSecret', cryptoRandom);
      await t.storage.applications.createApplication({
        ownerId: user.id, name: 'Spaced', clientId: 'spaced id', secretHash: hashCredential(clientSecret),
        redirectUris: ['https://odd.example/cb'], confidential: true, pkceRequired: false, scopes: ['read'],
      }, t.clock.now(), applicationCreated(t));
      const authorization = `Basic ${Buffer.from(`spaced+id:${clientSecret}`).toString('base64')}`;
      const response = await tokenRequest(t, { grant_type: 'client_credentials' }, { authorization });
      assert.equal(response.statusCode, 200, response.body);
    });

    it('answers Basic credentials that are not valid form-urlencoding (a raw "%") with 401 invalid_client, not a 500', async () => {
      const authorization = `Basic ${Buffer.from(`${client.clientId}:100%raw`).toString('base64')}`;
      const response = await tokenRequest(t, { grant_type: 'client_credentials' }, { authorization });
      assertOAuthError(response, 401, 'invalid_client');
    });

    it('accepts client_secret_basic with a body client_id naming the same client', async () => {
      const { code } = await obtainCode(t, client, user);
      const { client_secret: _secret, ...fields } = codeFields(client, code);
      const response = await tokenRequest(t, fields, basic(client.clientId, client.clientSecret));
      assert.equal(response.statusCode, 200, response.body);
    });

    it('accepts client_secret_post', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, codeFields(client, code));
      assert.equal(response.statusCode, 200, response.body);
    });

    it('accepts a public client that sends only its client_id', async () => {
      const publicClient = await createClient(t, user, { confidential: false });
      const { code, verifier } = await obtainCode(t, publicClient, user);
      const fields = codeFields(publicClient, code, verifier);
      assert.equal(fields.client_secret, undefined);
      const response = await tokenRequest(t, fields);
      assert.equal(response.statusCode, 200, response.body);
    });

    it('refuses Basic credentials together with client_secret in the body (invalid_request)', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, codeFields(client, code), basic(client.clientId, client.clientSecret));
      assertOAuthError(response, 400, 'invalid_request');
    });

    it('refuses Basic credentials with a different client_id in the body (invalid_request)', async () => {
      const other = await createClient(t, user);
      const { code } = await obtainCode(t, client, user);
      const { client_secret: _secret, ...fields } = codeFields(client, code);
      const response = await tokenRequest(t, { ...fields, client_id: other.clientId }, basic(client.clientId, client.clientSecret));
      assertOAuthError(response, 400, 'invalid_request');
    });

    it('answers a wrong secret sent with Basic with 401 invalid_client and a Basic challenge', async () => {
      const { code } = await obtainCode(t, client, user);
      const { client_secret: _secret, client_id: _id, ...fields } = codeFields(client, code);
      const wrong = generateCredential('clientSecret', cryptoRandom);
      const response = await tokenRequest(t, fields, basic(client.clientId, wrong));
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(String(response.headers['www-authenticate']), /^Basic /);
    });

    for (const [label, authorization] of [['without credentials', 'Basic'], ['separated by a tab', 'Basic\tZm9vOmJhcg==']] as const) {
      it(`answers a malformed Basic header (${label}) with 401 invalid_client and a Basic challenge`, async () => {
        const response = await tokenRequest(t, { grant_type: 'client_credentials' }, { authorization });
        assertOAuthError(response, 401, 'invalid_client');
        assert.match(String(response.headers['www-authenticate']), /^Basic /);
      });
    }

    it('answers a wrong client_secret in the body with 401 invalid_client and no Basic challenge', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, { ...codeFields(client, code), client_secret: generateCredential('clientSecret', cryptoRandom) });
      assertOAuthError(response, 401, 'invalid_client');
      assert.equal(response.headers['www-authenticate'], undefined);
    });

    it('refuses a malformed secret with invalid_client', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, { ...codeFields(client, code), client_secret: 'not-a-secret' });
      assertOAuthError(response, 401, 'invalid_client');
    });

    it('refuses a confidential client that sends no secret with invalid_client', async () => {
      const { code } = await obtainCode(t, client, user);
      const { client_secret: _secret, ...fields } = codeFields(client, code);
      const response = await tokenRequest(t, fields);
      assertOAuthError(response, 401, 'invalid_client');
    });

    it('refuses a public client that sends a wrong secret with invalid_client', async () => {
      const publicClient = await createClient(t, user, { confidential: false });
      const { code, verifier } = await obtainCode(t, publicClient, user);
      const fields = { ...codeFields(publicClient, code, verifier), client_secret: generateCredential('clientSecret', cryptoRandom) };
      assertOAuthError(await tokenRequest(t, fields), 401, 'invalid_client');
    });

    it('refuses an unknown client_id with invalid_client', async () => {
      const { code } = await obtainCode(t, client, user);
      assertOAuthError(await tokenRequest(t, { ...codeFields(client, code), client_id: 'nobody' }), 401, 'invalid_client');
    });

    it('refuses a request that identifies no client with invalid_client', async () => {
      const { code } = await obtainCode(t, client, user);
      const { client_secret: _secret, client_id: _id, ...fields } = codeFields(client, code);
      assertOAuthError(await tokenRequest(t, fields), 401, 'invalid_client');
    });
  });

  describe('RFC 6749 §5.1 successful response', () => {
    it('returns exactly access_token, token_type, expires_in, refresh_token and created_at, uncached', async () => {
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, codeFields(client, code));
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers.pragma, 'no-cache');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
      assert.equal(body.token_type, 'bearer');
      assert.equal(body.expires_in, 1800);
      assert.equal(body.created_at, START_SECONDS);
      assert.match(body.access_token, /^folio_at_/);
      assert.match(body.refresh_token, /^folio_rt_/);
    });

    it('sets created_at from the clock at issue time', async () => {
      const { code } = await obtainCode(t, client, user);
      t.clock.advance(90_500);
      const body = (await tokenRequest(t, codeFields(client, code))).json();
      assert.equal(body.created_at, START_SECONDS + 90);
    });
  });

  describe('RFC 6749 §5.2 error response', () => {
    it('answers a missing grant_type with invalid_request', async () => {
      const response = await tokenRequest(t, { client_id: client.clientId, client_secret: client.clientSecret });
      assertOAuthError(response, 400, 'invalid_request');
      assert.equal(response.headers['cache-control'], 'no-store');
    });

    it('answers an unknown grant_type with unsupported_grant_type', async () => {
      const response = await tokenRequest(t, { grant_type: 'password', username: 'a', password: 'b', client_id: client.clientId, client_secret: client.clientSecret });
      assertOAuthError(response, 400, 'unsupported_grant_type');
    });

    it('answers a missing code with invalid_request', async () => {
      const response = await tokenRequest(t, { grant_type: 'authorization_code', redirect_uri: client.application.redirectUris[0]!, client_id: client.clientId, client_secret: client.clientSecret });
      assertOAuthError(response, 400, 'invalid_request');
    });

    it('answers GET with 405 and Allow: POST', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/oauth2/token' });
      assert.equal(response.statusCode, 405);
      assert.equal(response.headers.allow, 'POST');
      assert.equal(response.json().error, 'method_not_allowed');
    });
  });

  describe('RFC 6749 §4.1.2 / §4.1.3 authorization codes', () => {
    it('exchanges a code up to just before 10 minutes', async () => {
      const { code } = await obtainCode(t, client, user);
      t.clock.advance(599_000);
      assert.equal((await tokenRequest(t, codeFields(client, code))).statusCode, 200);
    });

    it('refuses a code older than 10 minutes with invalid_grant', async () => {
      const { code } = await obtainCode(t, client, user);
      t.clock.advance(600_001);
      assertOAuthError(await tokenRequest(t, codeFields(client, code)), 400, 'invalid_grant');
    });

    it('rejects a replayed code and revokes the tokens issued from it, refreshed ones too, and only those', async () => {
      const { code } = await obtainCode(t, client, user);
      const first = (await tokenRequest(t, codeFields(client, code))).json();
      const refreshFields = (token: string) => ({ grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId, client_secret: client.clientSecret });
      const refreshed = (await tokenRequest(t, refreshFields(first.refresh_token))).json();
      const { code: otherCode } = await obtainCode(t, client, user);
      const otherDevice = (await tokenRequest(t, codeFields(client, otherCode))).json();
      assert.equal(await apiStatus(t, refreshed.access_token), 200);

      assertOAuthError(await tokenRequest(t, codeFields(client, code)), 400, 'invalid_grant');

      assert.equal(await apiStatus(t, first.access_token), 401);
      assert.equal(await apiStatus(t, refreshed.access_token), 401);
      assertOAuthError(await tokenRequest(t, refreshFields(refreshed.refresh_token)), 400, 'invalid_grant');
      assert.equal(await apiStatus(t, otherDevice.access_token), 200);
    });

    it('still catches a replay after the purge has run, for as long as the code would have lived', async () => {
      const { code } = await obtainCode(t, client, user);
      const first = (await tokenRequest(t, codeFields(client, code))).json();
      t.clock.advance(60_000);
      const now = t.clock.now();
      // The harshest cut-off: everything spent or revoked before this instant may go.
      await t.storage.tokens.purgeExpired(now, now);

      assertOAuthError(await tokenRequest(t, codeFields(client, code)), 400, 'invalid_grant');
      assert.equal(await apiStatus(t, first.access_token), 401);
    });

    it('of concurrent redemptions of one code at most one succeeds, and then its tokens are revoked as a replay', async () => {
      for (let race = 0; race < 5; race++) {
        const { code } = await obtainCode(t, client, user);
        const answers = await Promise.all(Array.from({ length: 4 }, () => tokenRequest(t, codeFields(client, code))));
        const succeeded = answers.filter((answer) => answer.statusCode === 200);
        assert.ok(succeeded.length <= 1, `${succeeded.length} successes`);
        for (const answer of answers.filter((candidate) => candidate.statusCode !== 200)) assertOAuthError(answer, 400, 'invalid_grant');
        for (const answer of succeeded) assert.equal(await apiStatus(t, answer.json().access_token), 401);
      }
    });

    it('a used code sent by another client is refused without revoking anything', async () => {
      const { code } = await obtainCode(t, client, user);
      const first = (await tokenRequest(t, codeFields(client, code))).json();
      const other = await createClient(t, user, { confidential: false });
      const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: 'http://elsewhere.example/', client_id: other.clientId });
      assertOAuthError(response, 400, 'invalid_grant');
      assert.match(response.json().error_description, /another client/);
      assert.equal(await apiStatus(t, first.access_token), 200);
    });

    it('refuses a code issued to another client with invalid_grant', async () => {
      const other = await createClient(t, user);
      const { code } = await obtainCode(t, client, user);
      const response = await tokenRequest(t, { ...codeFields(other, code), redirect_uri: client.application.redirectUris[0]! });
      assertOAuthError(response, 400, 'invalid_grant');
    });

    it('refuses a redirect_uri other than the one the code was issued for with invalid_grant', async () => {
      const twoUris = await createClient(t, user, { redirectUris: ['https://client.example/callback', 'https://client.example/other'] });
      const { code } = await obtainCode(t, twoUris, user);
      const response = await tokenRequest(t, { ...codeFields(twoUris, code), redirect_uri: 'https://client.example/other' });
      assertOAuthError(response, 400, 'invalid_grant');
    });

    it('refuses a missing redirect_uri with invalid_request', async () => {
      const { code } = await obtainCode(t, client, user);
      const { redirect_uri: _uri, ...fields } = codeFields(client, code);
      assertOAuthError(await tokenRequest(t, fields), 400, 'invalid_request');
    });

    it('refuses a garbage code with invalid_grant', async () => {
      assertOAuthError(await tokenRequest(t, codeFields(client, 'garbage')), 400, 'invalid_grant');
      const unknown = generateCredential('authorizationCode', cryptoRandom);
      assertOAuthError(await tokenRequest(t, codeFields(client, unknown)), 400, 'invalid_grant');
    });
  });

  describe('audit (DESIGN §2)', () => {
    it('records token.issued on exchange and code.replayed on replay', async () => {
      const { code } = await obtainCode(t, client, user);
      await tokenRequest(t, codeFields(client, code));
      await tokenRequest(t, codeFields(client, code));
      const events = await t.storage.audit.listEventsForUser(user.id, 50);
      const issued = events.filter((event) => event.type === 'token.issued');
      assert.equal(issued.length, 1);
      assert.equal(issued[0]!.applicationId, client.application.id);
      assert.equal(issued[0]!.detail.grant_type, 'authorization_code');
      assert.equal(events.filter((event) => event.type === 'code.replayed').length, 1);
      assert.ok(!JSON.stringify(events).includes(code));
    });
  });
});

describe('DESIGN §2 secrets at rest', () => {
  it('stores only hashes of codes, tokens and client secrets', async () => {
    const database = openSqlite(':memory:');
    const { db } = database;
    const storage = createStorage(database);
    await storage.migrate();
    const clock = new FixedClock(Date.UTC(2026, 0, 15, 9, 0, 0));
    const config = loadConfig({ FOLIO_LOG_LEVEL: 'silent', FOLIO_BASE_URL: 'http://folio.test' });
    const app = await buildApp({ config, storage, clock, random: cryptoRandom, logger: createLogger(config) });
    const t: TestApp = { app, storage, clock, baseUrl: config.baseUrl, close: async () => { await app.close(); await storage.close(); } };
    try {
      const user = await createUser(t);
      const client = await createClient(t, user);
      const { code } = await obtainCode(t, client, user);
      const first = (await tokenRequest(t, codeFields(client, code))).json();
      const refreshed = (await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.clientId, client_secret: client.clientSecret })).json();
      const secrets = [code, client.clientSecret, first.access_token, first.refresh_token, refreshed.access_token, refreshed.refresh_token];

      assert.ok(await storage.tokens.findAccessToken(hashCredential(refreshed.access_token)));
      assert.ok(await storage.tokens.findRefreshToken(hashCredential(refreshed.refresh_token)));
      assert.equal(await storage.tokens.findAccessToken(refreshed.access_token), undefined);

      const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
      const names = tables.rows.map((row) => row.name);
      for (const expected of ['access_tokens', 'refresh_tokens', 'authorization_codes', 'applications']) assert.ok(names.includes(expected), expected);
      let rowsSeen = 0;
      for (const name of names) {
        const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
        rowsSeen += rows.rows.length;
        const dump = JSON.stringify(rows.rows);
        for (const secret of secrets) assert.ok(!dump.includes(secret), `${name} holds a raw secret`);
      }
      assert.ok(rowsSeen > 0);
      const codes = await sql<{ code_hash: string }>`select code_hash from authorization_codes`.execute(db);
      assert.deepEqual(codes.rows.map((row) => row.code_hash), [hashCredential(code)]);
    } finally {
      await t.close();
    }
  });
});
