// RFC 6749 §6 refresh with rotation and reuse detection (RFC 9700 §4.14.2, DESIGN §2).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, bearer, cookieHeader, createClient, createTestApp, createUser, obtainTokens, signIn, tokenRequest,
} from '../support/app.ts';

const SECOND = 1000;
const DAY = 24 * 3600 * SECOND;

interface Tokens { access_token: string; refresh_token: string }

function refresh(t: TestApp, client: TestClient, refreshToken: string, extra: Record<string, string> = {}) {
  const fields: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, ...extra };
  if (client.application.confidential) fields.client_secret = client.clientSecret;
  return tokenRequest(t, fields);
}

async function apiStatus(t: TestApp, accessToken: string): Promise<number> {
  return (await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(accessToken) })).statusCode;
}

function assertInvalidGrant(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 400, response.body);
  assert.deepEqual(response.json(), { error: 'invalid_grant', error_description: response.json().error_description });
}

describe('refresh token grant', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let first: Tokens;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    client = await createClient(t, user);
    first = await obtainTokens(t, client, user);
  });
  afterEach(async () => { await t.close(); });

  describe('RFC 6749 §6 refreshing an access token', () => {
    it('returns a new access token and a new refresh token in the token response shape', async () => {
      t.clock.advance(60 * SECOND);
      const response = await refresh(t, client, first.refresh_token);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
      assert.equal(body.token_type, 'bearer');
      assert.equal(body.expires_in, 1800);
      assert.equal(body.created_at, Math.floor(t.clock.now() / 1000));
      assert.notEqual(body.access_token, first.access_token);
      assert.notEqual(body.refresh_token, first.refresh_token);
      assert.equal(await apiStatus(t, body.access_token), 200);
    });

    it('requires a confidential client to send its secret', async () => {
      const response = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.clientId });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_client');
      // The failed attempt did not spend the token.
      assert.equal((await refresh(t, client, first.refresh_token)).statusCode, 200);
    });

    it('refuses a wrong secret with invalid_client', async () => {
      const response = await refresh(t, { ...client, clientSecret: generateCredential('clientSecret', cryptoRandom) }, first.refresh_token);
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_client');
    });

    it('lets a public client refresh with its client_id only', async () => {
      const publicClient = await createClient(t, user, { confidential: false });
      const tokens = await obtainTokens(t, publicClient, user);
      const response = await refresh(t, publicClient, tokens.refresh_token);
      assert.equal(response.statusCode, 200, response.body);
    });

    it('refuses a refresh token issued to another client with invalid_grant', async () => {
      const other = await createClient(t, user);
      assertInvalidGrant(await refresh(t, other, first.refresh_token));
      // The owner can still use it: a foreign attempt does not burn it.
      assert.equal((await refresh(t, client, first.refresh_token)).statusCode, 200);
    });

    it('refuses a missing refresh_token with invalid_request', async () => {
      const response = await tokenRequest(t, { grant_type: 'refresh_token', client_id: client.clientId, client_secret: client.clientSecret });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error, 'invalid_request');
    });

    it('refuses a garbage or unknown refresh token with invalid_grant', async () => {
      assertInvalidGrant(await refresh(t, client, 'garbage'));
      assertInvalidGrant(await refresh(t, client, generateCredential('refreshToken', cryptoRandom)));
      assertInvalidGrant(await refresh(t, client, first.access_token));
    });

    it('refuses to widen the scope with invalid_scope', async () => {
      const response = await refresh(t, client, first.refresh_token, { scope: 'read write' });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error, 'invalid_scope');
    });
  });

  describe('RFC 9700 §4.14.2 rotation', () => {
    it('kills the presented refresh token at once', async () => {
      assert.equal((await refresh(t, client, first.refresh_token)).statusCode, 200);
      assertInvalidGrant(await refresh(t, client, first.refresh_token));
    });

    it('keeps the previous access token alive until it expires', async () => {
      t.clock.advance(600 * SECOND);
      const second = (await refresh(t, client, first.refresh_token)).json();
      assert.equal(await apiStatus(t, first.access_token), 200);
      t.clock.advance(1200 * SECOND); // 1800 s after the first access token was issued
      assert.equal(await apiStatus(t, first.access_token), 401);
      assert.equal(await apiStatus(t, second.access_token), 200);
    });

    it('lets exactly one of 20 concurrent refreshes win, without revoking the grant', async () => {
      const responses = await Promise.all(Array.from({ length: 20 }, () => refresh(t, client, first.refresh_token)));
      const winners = responses.filter((response) => response.statusCode === 200);
      assert.equal(winners.length, 1);
      for (const loser of responses.filter((response) => response.statusCode !== 200)) assertInvalidGrant(loser);
      const won = winners[0]!.json();
      assert.equal(await apiStatus(t, won.access_token), 200);
      assert.equal(await apiStatus(t, first.access_token), 200);
      assert.equal((await refresh(t, client, won.refresh_token)).statusCode, 200);
      const events = await t.storage.audit.listEventsForUser(user.id, 100);
      assert.equal(events.filter((event) => event.type === 'refresh_token.reused').length, 0);
      // Each loser is on record, whether it lost at the lookup or at the conditional write.
      assert.equal(events.filter((event) => event.type === 'refresh_token.raced').length, 19);
    });

    it('answers reuse within 10 s of rotation with invalid_grant, revokes nothing, and records it', async () => {
      const second = (await refresh(t, client, first.refresh_token)).json();
      t.clock.advance(10 * SECOND);
      assertInvalidGrant(await refresh(t, client, first.refresh_token));
      assert.equal(await apiStatus(t, second.access_token), 200);
      assert.equal((await refresh(t, client, second.refresh_token)).statusCode, 200);
      const raced = (await t.storage.audit.listEventsForUser(user.id, 100)).filter((event) => event.type === 'refresh_token.raced');
      assert.equal(raced.length, 1);
      assert.equal(raced[0]!.applicationId, client.application.id);
      const activity = await t.app.inject({ method: 'GET', url: '/activity', headers: { cookie: cookieHeader(await signIn(t, user)) } });
      assert.match(activity.body, /Refresh token used again within seconds/);
    });

    it("treats reuse after 10 s as theft and revokes every token of that authorization, and only those", async () => {
      const otherDevice = await obtainTokens(t, client, user);
      const second = (await refresh(t, client, first.refresh_token)).json();
      t.clock.advance(11 * SECOND);
      assertInvalidGrant(await refresh(t, client, first.refresh_token));
      assert.equal(await apiStatus(t, second.access_token), 401);
      assert.equal(await apiStatus(t, first.access_token), 401);
      assertInvalidGrant(await refresh(t, client, second.refresh_token));
      assert.equal(await apiStatus(t, otherDevice.access_token), 200);
      assert.equal((await refresh(t, client, otherDevice.refresh_token)).statusCode, 200);
      const events = await t.storage.audit.listEventsForUser(user.id, 100);
      const reused = events.filter((event) => event.type === 'refresh_token.reused');
      assert.equal(reused.length, 1);
      assert.equal(reused[0]!.applicationId, client.application.id);
    });
  });

  describe('DESIGN §2 lifetimes', () => {
    it('expires the access token after 1800 s (401 invalid_token on the API)', async () => {
      t.clock.advance(1799 * SECOND);
      assert.equal(await apiStatus(t, first.access_token), 200);
      t.clock.advance(1 * SECOND);
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(first.access_token) });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_token');
      assert.match(String(response.headers['www-authenticate']), /error="invalid_token"/);
    });

    it('refreshes an expired access token', async () => {
      t.clock.advance(1801 * SECOND);
      const response = await refresh(t, client, first.refresh_token);
      assert.equal(response.statusCode, 200);
      assert.equal(await apiStatus(t, response.json().access_token), 200);
    });

    it('refuses a refresh token unused for 90 days', async () => {
      t.clock.advance(90 * DAY + 1);
      assertInvalidGrant(await refresh(t, client, first.refresh_token));
    });

    it('accepts a refresh token just inside 90 days', async () => {
      t.clock.advance(90 * DAY - SECOND);
      assert.equal((await refresh(t, client, first.refresh_token)).statusCode, 200);
    });

    it('restarts the 90-day window on each refresh', async () => {
      t.clock.advance(89 * DAY);
      const second = (await refresh(t, client, first.refresh_token)).json();
      t.clock.advance(89 * DAY);
      const third = await refresh(t, client, second.refresh_token);
      assert.equal(third.statusCode, 200, third.body);
      t.clock.advance(90 * DAY + 1);
      assertInvalidGrant(await refresh(t, client, third.json().refresh_token));
    });
  });

  describe('audit (DESIGN §2)', () => {
    it('records token.refreshed for a rotation', async () => {
      await refresh(t, client, first.refresh_token);
      const events = await t.storage.audit.listEventsForUser(user.id, 50);
      const refreshed = events.filter((event) => event.type === 'token.refreshed');
      assert.equal(refreshed.length, 1);
      assert.equal(refreshed[0]!.applicationId, client.application.id);
    });
  });
});
