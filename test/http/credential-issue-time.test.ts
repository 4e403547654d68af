// Access tokens, refresh tokens and codes carry their issue time, which orders their
// stored forms (src/platform/secrets.ts); credentials of the shape issued before that
// stay valid for as long as they live.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { lifetimes } from '../../src/oauth/lifetimes.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, bearer, createClient, createTestApp, createUser, form, obtainCode, obtainTokens, tokenRequest,
} from '../support/app.ts';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/** The 8 characters after the type prefix, read back as milliseconds. */
const issueTimeOf = (credential: string) => Buffer.from(credential.slice('folio_at_'.length, 'folio_at_'.length + 8), 'base64url').readUIntBE(0, 6);
/** The stored form of a credential issued at `issuedAt`, written out by hand. */
const storedForm = (credential: string, issuedAt: number) => issuedAt.toString(16).padStart(12, '0') + sha256(credential);

describe('credentials that carry their issue time', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    client = await createClient(t, user);
  });
  afterEach(async () => { await t.close(); });

  it('issues tokens and codes that carry the time they were issued at, stored under that time and their hash', async () => {
    const { code } = await obtainCode(t, client, user);
    assert.equal(issueTimeOf(code), t.clock.now());
    const stored = await t.storage.codes.findAuthorizationCode(storedForm(code, t.clock.now()));
    assert.ok(stored, 'the code is stored under its issue time and hash');

    t.clock.advance(5_000);
    const tokens = await obtainTokens(t, client, user);
    for (const token of [tokens.access_token, tokens.refresh_token]) assert.equal(issueTimeOf(token), t.clock.now());
    assert.equal(tokens.created_at, Math.floor(issueTimeOf(tokens.access_token) / 1000));
    assert.ok(await t.storage.tokens.findAccessToken(storedForm(tokens.access_token, t.clock.now())));
    assert.ok(await t.storage.tokens.findRefreshToken(storedForm(tokens.refresh_token, t.clock.now())));
  });

  it('stores later tokens under forms that sort after earlier ones', async () => {
    const forms: string[] = [];
    for (let index = 0; index < 5; index++) {
      // Each millisecond apart, the random bits would sort them any which way.
      t.clock.advance(1);
      forms.push(hashCredential((await obtainTokens(t, client, user)).access_token));
    }
    assert.deepEqual([...forms].sort(), forms);
  });

  describe('credentials of the shape issued before the time was added', () => {
    async function saveEarlierShapeTokens() {
      const now = t.clock.now();
      const grant = await t.storage.grants.findOrCreateActiveGrant(user.id, client.application.id, ['read'], now);
      const accessToken = generateCredential('accessToken', cryptoRandom);
      const refreshToken = generateCredential('refreshToken', cryptoRandom);
      const subject = { grantId: grant.id, applicationId: client.application.id, userId: user.id, scope: ['read'], createdAt: now, revokedAt: null, originCodeHash: null, resource: null };
      // What the earlier release stored: the plain SHA-256.
      assert.ok(await t.storage.tokens.saveTokens({
        access: { ...subject, tokenHash: sha256(accessToken), expiresAt: now + lifetimes.accessToken },
        refresh: { ...subject, tokenHash: sha256(refreshToken), expiresAt: now + lifetimes.refreshTokenIdle, rotatedAt: null },
      }));
      return { accessToken, refreshToken };
    }

    it('are still accepted by the bearer API, introspection and revocation', async () => {
      const { accessToken, refreshToken } = await saveEarlierShapeTokens();
      assert.equal(accessToken.length, 'folio_at_'.length + 43 + 6);
      const api = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(accessToken) });
      assert.equal(api.statusCode, 200, api.body);
      const credentials = { client_id: client.clientId, client_secret: client.clientSecret };
      const introspected = await t.app.inject({ method: 'POST', url: '/oauth2/introspect', ...form({ token: refreshToken, ...credentials }) });
      assert.equal(introspected.json().active, true, introspected.body);
      const revoked = await t.app.inject({ method: 'POST', url: '/oauth2/revoke', ...form({ token: accessToken, ...credentials }) });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(accessToken) })).statusCode, 401);
    });

    it('are exchanged once for tokens of the new shape when refreshed', async () => {
      const { refreshToken } = await saveEarlierShapeTokens();
      t.clock.advance(60_000);
      const fields = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret };
      const response = await tokenRequest(t, fields);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(issueTimeOf(response.json().refresh_token), t.clock.now());
      assert.equal((await tokenRequest(t, fields)).json().error, 'invalid_grant');
    });

    it('includes codes: one of the earlier shape is exchanged for tokens', async () => {
      const now = t.clock.now();
      const grant = await t.storage.grants.findOrCreateActiveGrant(user.id, client.application.id, ['read'], now);
      const code = generateCredential('authorizationCode', cryptoRandom);
      await t.storage.codes.saveAuthorizationCode({
        codeHash: sha256(code), grantId: grant.id, applicationId: client.application.id, userId: user.id,
        redirectUri: client.application.redirectUris[0]!, scope: ['read'], codeChallenge: null,
        createdAt: now, expiresAt: now + lifetimes.authorizationCode, consumedAt: null, resource: null,
      });
      const response = await tokenRequest(t, {
        grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!,
        client_id: client.clientId, client_secret: client.clientSecret,
      });
      assert.equal(response.statusCode, 200, response.body);
    });
  });
});
