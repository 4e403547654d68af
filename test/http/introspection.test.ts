// RFC 7662 token introspection at POST /oauth2/introspect: confidential clients, own tokens.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, assertError, basic, createClient, createTestApp, createUser, form, obtainTokens, tokenRequest,
} from '../support/app.ts';

const START_SECONDS = Date.UTC(2026, 0, 15, 9, 0, 0) / 1000;

interface Tokens { access_token: string; refresh_token: string }

function introspect(t: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const body = form(fields);
  return t.app.inject({ method: 'POST', url: '/oauth2/introspect', payload: body.payload, headers: { ...body.headers, ...headers } });
}

const credentials = (client: TestClient) => ({ client_id: client.clientId, client_secret: client.clientSecret });

function assertInactive(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(response.json(), { active: false });
}

describe('token introspection', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let tokens: Tokens;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    client = await createClient(t, user);
    tokens = await obtainTokens(t, client, user);
  });
  afterEach(async () => { await t.close(); });

  describe('RFC 7662 §2.2 active tokens', () => {
    it("describes the client's own live access token", async () => {
      t.clock.advance(5_000);
      const response = await introspect(t, { token: tokens.access_token, ...credentials(client) });
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.deepEqual(response.json(), {
        active: true,
        scope: 'read',
        client_id: client.clientId,
        token_type: 'bearer',
        token_use: 'access_token',
        exp: START_SECONDS + 1800,
        iat: START_SECONDS,
        sub: String(user.id),
        iss: 'http://folio.test',
      });
    });

    it("describes the client's own live refresh token", async () => {
      const response = await introspect(t, { token: tokens.refresh_token, ...credentials(client) });
      const body = response.json();
      assert.equal(body.active, true);
      assert.equal(body.token_type, undefined, 'token_type is the RFC 6749 §5.1 type, which a refresh token has not');
      assert.equal(body.token_use, 'refresh_token');
      assert.equal(body.exp, START_SECONDS + 90 * 24 * 3600);
    });

    it('accepts client_secret_basic', async () => {
      const response = await introspect(t, { token: tokens.access_token }, basic(client.clientId, client.clientSecret));
      assert.equal(response.json().active, true);
    });
  });

  describe('RFC 7662 §2.2 inactive tokens reveal nothing', () => {
    it('reports an expired access token inactive', async () => {
      t.clock.advance(1800_000);
      assertInactive(await introspect(t, { token: tokens.access_token, ...credentials(client) }));
    });

    it('reports a revoked access token inactive', async () => {
      const revoked = form({ token: tokens.access_token, ...credentials(client) });
      assert.equal((await t.app.inject({ method: 'POST', url: '/oauth2/revoke', ...revoked })).statusCode, 200);
      assertInactive(await introspect(t, { token: tokens.access_token, ...credentials(client) }));
    });

    it('reports a rotated refresh token inactive', async () => {
      const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...credentials(client) });
      assert.equal(refreshed.statusCode, 200);
      assertInactive(await introspect(t, { token: tokens.refresh_token, ...credentials(client) }));
      assert.equal((await introspect(t, { token: refreshed.json().refresh_token, ...credentials(client) })).json().active, true);
    });

    it('reports garbage and unknown tokens inactive', async () => {
      assertInactive(await introspect(t, { token: 'garbage', ...credentials(client) }));
      assertInactive(await introspect(t, { token: generateCredential('accessToken', cryptoRandom), ...credentials(client) }));
      assertInactive(await introspect(t, { token: client.clientSecret, ...credentials(client) }));
    });

    it("reports another client's live token inactive", async () => {
      const other = await createClient(t, user);
      assertInactive(await introspect(t, { token: tokens.access_token, ...credentials(other) }));
      assertInactive(await introspect(t, { token: tokens.refresh_token, ...credentials(other) }));
    });
  });

  describe('RFC 7662 §2.1 the caller must authenticate as a confidential client', () => {
    it('refuses a public client with 401 invalid_client', async () => {
      const publicClient = await createClient(t, user, { confidential: false });
      const own = await obtainTokens(t, publicClient, user);
      assertError(await introspect(t, { token: own.access_token, client_id: publicClient.clientId }), 401, 'invalid_client');
    });

    it('refuses a public client even when it sends its secret', async () => {
      const publicClient = await createClient(t, user, { confidential: false });
      const own = await obtainTokens(t, publicClient, user);
      assertError(await introspect(t, { token: own.access_token, ...credentials(publicClient) }), 401, 'invalid_client');
    });

    it('refuses a wrong secret with 401 invalid_client', async () => {
      const wrong = { client_id: client.clientId, client_secret: generateCredential('clientSecret', cryptoRandom) };
      assertError(await introspect(t, { token: tokens.access_token, ...wrong }), 401, 'invalid_client');
    });

    it('refuses a request with no client with 401 invalid_client', async () => {
      assertError(await introspect(t, { token: tokens.access_token }), 401, 'invalid_client');
    });

    it('refuses a request without token with invalid_request', async () => {
      assertError(await introspect(t, credentials(client)), 400, 'invalid_request');
    });

    it('answers GET with 405 and Allow: POST', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/oauth2/introspect' });
      assert.equal(response.statusCode, 405);
      assert.equal(response.headers.allow, 'POST');
    });
  });
});
