// RFC 7009 token revocation at POST /oauth2/revoke.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, assertError, basic, bearer, createClient, createTestApp, createUser, form, obtainTokens, tokenRequest,
} from '../support/app.ts';

interface Tokens { access_token: string; refresh_token: string }

function revoke(t: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const body = form(fields);
  return t.app.inject({ method: 'POST', url: '/oauth2/revoke', payload: body.payload, headers: { ...body.headers, ...headers } });
}

const asClient = (client: TestClient): Record<string, string> => client.application.confidential
  ? { client_id: client.clientId, client_secret: client.clientSecret }
  : { client_id: client.clientId };

async function apiStatus(t: TestApp, accessToken: string): Promise<number> {
  return (await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(accessToken) })).statusCode;
}

function refresh(t: TestApp, client: TestClient, refreshToken: string) {
  return tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, ...asClient(client) });
}

/** RFC 7009 §2.2: 200; the body, which clients ignore, is `{}` as JSON, since some HTTP clients require JSON. */
function assertRevoked200(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.body, '{}');
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
}

describe('token revocation', () => {
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

  describe('RFC 7009 §2.1 revocation request', () => {
    it('revokes an access token: 200 with an empty JSON object, then the API answers 401', async () => {
      assert.equal(await apiStatus(t, tokens.access_token), 200);
      assertRevoked200(await revoke(t, { token: tokens.access_token, ...asClient(client) }));
      assert.equal(await apiStatus(t, tokens.access_token), 401);
      // Revoking an access token leaves the refresh token alone.
      assert.equal((await refresh(t, client, tokens.refresh_token)).statusCode, 200);
    });

    it('revokes only the authorization the refresh token belongs to: another device and the client_credentials token keep theirs', async () => {
      const otherDevice = await obtainTokens(t, client, user);
      const machine = (await tokenRequest(t, { grant_type: 'client_credentials', ...asClient(client) })).json();
      assertRevoked200(await revoke(t, { token: tokens.refresh_token, ...asClient(client) }));
      assert.equal(await apiStatus(t, tokens.access_token), 401);
      assert.equal((await refresh(t, client, tokens.refresh_token)).statusCode, 400);
      assert.equal(await apiStatus(t, otherDevice.access_token), 200);
      assert.equal(await apiStatus(t, machine.access_token), 200);
      assert.equal((await refresh(t, client, otherDevice.refresh_token)).statusCode, 200);
    });

    it("revoking an application's only authorization takes it off the user's connected applications", async () => {
      assert.equal((await t.storage.grants.listConnectedApplications(user.id)).length, 1);
      assertRevoked200(await revoke(t, { token: tokens.refresh_token, ...asClient(client) }));
      assert.deepEqual(await t.storage.grants.listConnectedApplications(user.id), []);
    });

    it('revokes the whole grant for a refresh token from before tokens recorded their authorization code', async () => {
      const legacy = generateCredential('refreshToken', cryptoRandom);
      const grant = await t.storage.grants.findOrCreateActiveGrant(user.id, client.application.id, ['read'], t.clock.now());
      const access = { tokenHash: hashCredential(generateCredential('accessToken', cryptoRandom)), grantId: grant.id, applicationId: client.application.id,
        userId: user.id, scope: ['read'], createdAt: t.clock.now(), expiresAt: t.clock.now() + 1_800_000, revokedAt: null, originCodeHash: null, resource: null };
      await t.storage.tokens.saveTokens({ access, refresh: { ...access, tokenHash: hashCredential(legacy), expiresAt: t.clock.now() + 86_400_000, rotatedAt: null } });
      assertRevoked200(await revoke(t, { token: legacy, ...asClient(client) }));
      assert.equal(await apiStatus(t, tokens.access_token), 401);
    });

    it("revokes a refresh token and, with it, the grant's access tokens", async () => {
      const refreshed = (await refresh(t, client, tokens.refresh_token)).json();
      assertRevoked200(await revoke(t, { token: refreshed.refresh_token, token_type_hint: 'refresh_token', ...asClient(client) }));
      assert.equal((await refresh(t, client, refreshed.refresh_token)).statusCode, 400);
      assert.equal(await apiStatus(t, refreshed.access_token), 401);
      assert.equal(await apiStatus(t, tokens.access_token), 401);
    });

    it('ignores a wrong token_type_hint', async () => {
      assertRevoked200(await revoke(t, { token: tokens.access_token, token_type_hint: 'refresh_token', ...asClient(client) }));
      assert.equal(await apiStatus(t, tokens.access_token), 401);
    });

    it('accepts client_secret_basic', async () => {
      assertRevoked200(await revoke(t, { token: tokens.access_token }, basic(client.clientId, client.clientSecret)));
      assert.equal(await apiStatus(t, tokens.access_token), 401);
    });

    it('lets a public client revoke its own token with its client_id', async () => {
      const publicClient = await createClient(t, user, { confidential: false });
      const own = await obtainTokens(t, publicClient, user);
      assertRevoked200(await revoke(t, { token: own.refresh_token, client_id: publicClient.clientId }));
      assert.equal((await refresh(t, publicClient, own.refresh_token)).statusCode, 400);
      assert.equal(await apiStatus(t, own.access_token), 401);
    });

    it("refuses to revoke another client's token (unauthorized_client) and leaves it alive", async () => {
      const other = await createClient(t, user);
      assertError(await revoke(t, { token: tokens.access_token, ...asClient(other) }), 400, 'unauthorized_client');
      assertError(await revoke(t, { token: tokens.refresh_token, ...asClient(other) }), 400, 'unauthorized_client');
      assert.equal(await apiStatus(t, tokens.access_token), 200);
      assert.equal((await refresh(t, client, tokens.refresh_token)).statusCode, 200);
    });

    it('refuses a request without token with invalid_request', async () => {
      assertError(await revoke(t, asClient(client)), 400, 'invalid_request');
    });

    it('refuses a parameter given twice with invalid_request', async () => {
      const payload = `${new URLSearchParams({ token: tokens.access_token, ...asClient(client) })}&token=other`;
      const response = await t.app.inject({ method: 'POST', url: '/oauth2/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      assertError(response, 400, 'invalid_request');
      assert.equal(await apiStatus(t, tokens.access_token), 200);
    });

    it("takes the token from the query string when the body is empty, as Ruby's oauth2 gem sends it", async () => {
      const query = new URLSearchParams({ token: tokens.access_token });
      const response = await t.app.inject({
        method: 'POST', url: `/oauth2/revoke?${query}`, headers: basic(client.clientId, client.clientSecret),
      });
      assertRevoked200(response);
      assert.equal(await apiStatus(t, tokens.access_token), 401);
    });

    it('reads only the body when it has parameters, and refuses a malformed query string of an empty body', async () => {
      const query = new URLSearchParams({ token: tokens.access_token });
      const body = form({ token: 'folio_at_unknown', ...asClient(client) });
      assertRevoked200(await t.app.inject({ method: 'POST', url: `/oauth2/revoke?${query}`, payload: body.payload, headers: body.headers }));
      assert.equal(await apiStatus(t, tokens.access_token), 200);
      const malformed = await t.app.inject({ method: 'POST', url: '/oauth2/revoke?token=%E0%A4%A', headers: basic(client.clientId, client.clientSecret) });
      assertError(malformed, 400, 'invalid_request');
      const repeated = await t.app.inject({
        method: 'POST', url: `/oauth2/revoke?${query}&token=other`, headers: basic(client.clientId, client.clientSecret),
      });
      assertError(repeated, 400, 'invalid_request');
      assert.equal(await apiStatus(t, tokens.access_token), 200);
    });

    it('answers GET with 405 and Allow: POST', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/oauth2/revoke' });
      assert.equal(response.statusCode, 405);
      assert.equal(response.headers.allow, 'POST');
    });
  });

  describe('RFC 7009 §2.1 client authentication', () => {
    it('refuses a wrong secret with 401 invalid_client, and does not revoke', async () => {
      const wrong = { client_id: client.clientId, client_secret: generateCredential('clientSecret', cryptoRandom) };
      assertError(await revoke(t, { token: tokens.access_token, ...wrong }), 401, 'invalid_client');
      assert.equal(await apiStatus(t, tokens.access_token), 200);
    });

    it('refuses a wrong Basic secret with 401 invalid_client and a Basic challenge', async () => {
      const response = await revoke(t, { token: tokens.access_token }, basic(client.clientId, generateCredential('clientSecret', cryptoRandom)));
      assertError(response, 401, 'invalid_client');
      assert.match(String(response.headers['www-authenticate']), /^Basic /);
    });

    it('refuses a confidential client without its secret with 401 invalid_client', async () => {
      assertError(await revoke(t, { token: tokens.access_token, client_id: client.clientId }), 401, 'invalid_client');
      assert.equal(await apiStatus(t, tokens.access_token), 200);
    });

    it('refuses a request with no client at all with 401 invalid_client', async () => {
      assertError(await revoke(t, { token: tokens.access_token }), 401, 'invalid_client');
      assert.equal(await apiStatus(t, tokens.access_token), 200);
    });
  });

  describe('RFC 7009 §2.2 revocation response', () => {
    it('answers 200 for an unknown or garbage token', async () => {
      assertRevoked200(await revoke(t, { token: generateCredential('accessToken', cryptoRandom), ...asClient(client) }));
      assertRevoked200(await revoke(t, { token: generateCredential('refreshToken', cryptoRandom), ...asClient(client) }));
      assertRevoked200(await revoke(t, { token: 'garbage', ...asClient(client) }));
    });

    it('answers 200 for a token revoked already', async () => {
      assertRevoked200(await revoke(t, { token: tokens.refresh_token, ...asClient(client) }));
      assertRevoked200(await revoke(t, { token: tokens.refresh_token, ...asClient(client) }));
      assertRevoked200(await revoke(t, { token: tokens.access_token, ...asClient(client) }));
    });
  });

  describe('audit (DESIGN §2)', () => {
    it('records token.revoked once per token actually revoked', async () => {
      await revoke(t, { token: tokens.access_token, ...asClient(client) });
      await revoke(t, { token: tokens.access_token, ...asClient(client) });
      await revoke(t, { token: tokens.refresh_token, ...asClient(client) });
      const events = await t.storage.audit.listEventsForUser(user.id, 50);
      const revoked = events.filter((event) => event.type === 'token.revoked').map((event) => event.detail.token_type).sort();
      assert.deepEqual(revoked, ['access_token', 'refresh_token']);
    });
  });
});
