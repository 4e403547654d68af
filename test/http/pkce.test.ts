// RFC 7636 PKCE: S256 only, required for public applications by default (DESIGN §2).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, authorizeUrl, bearer, continuationOf, cookieHeader, createClient, createTestApp, createUser,
  obtainCode, pkcePair, signIn, tokenRequest,
} from '../support/app.ts';

/**
 * GET /oauth2/authorize as a signed-in user who has not approved the application yet;
 * returns where the error page's link continues (no redirect before approval, RFC 9700 §4.11.2).
 */
async function authorizeRedirect(t: TestApp, user: User, client: TestClient, extra: Record<string, string>): Promise<URL> {
  const jar = await signIn(t, user);
  return continuationOf(await t.app.inject({ method: 'GET', url: authorizeUrl(client, extra), headers: { cookie: cookieHeader(jar) } }));
}

function assertRedirectedError(location: URL, client: TestClient, error: string): void {
  assert.equal(`${location.origin}${location.pathname}`, client.application.redirectUris[0]);
  assert.equal(location.searchParams.get('error'), error);
  assert.equal(location.searchParams.get('state'), 'xyz-state');
  assert.equal(location.searchParams.get('iss'), 'http://folio.test');
  assert.equal(location.searchParams.get('code'), null);
}

function exchange(t: TestApp, client: TestClient, code: string, verifier?: string) {
  const fields: Record<string, string> = {
    grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, client_id: client.clientId,
  };
  if (client.application.confidential) fields.client_secret = client.clientSecret;
  if (verifier !== undefined) fields.code_verifier = verifier;
  return tokenRequest(t, fields);
}

function assertInvalidGrant(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 400, response.body);
  assert.equal(response.json().error, 'invalid_grant');
}

describe('PKCE', () => {
  let t: TestApp;
  let user: User;
  let publicClient: TestClient;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    publicClient = await createClient(t, user, { confidential: false });
  });
  afterEach(async () => { await t.close(); });

  describe('RFC 7636 §4.3 code challenge in the authorization request', () => {
    it('refuses code_challenge_method=plain with a redirected invalid_request', async () => {
      const { verifier } = pkcePair();
      const location = await authorizeRedirect(t, user, publicClient, { code_challenge: verifier, code_challenge_method: 'plain' });
      assertRedirectedError(location, publicClient, 'invalid_request');
    });

    it('refuses a challenge without a method, which would mean plain', async () => {
      const { challenge } = pkcePair();
      const location = await authorizeRedirect(t, user, publicClient, { code_challenge: challenge });
      assertRedirectedError(location, publicClient, 'invalid_request');
    });

    it('refuses a challenge that is not a base64url SHA-256 digest', async () => {
      const location = await authorizeRedirect(t, user, publicClient, { code_challenge: 'too-short', code_challenge_method: 'S256' });
      assertRedirectedError(location, publicClient, 'invalid_request');
    });

    it('requires a challenge from a public application by default', async () => {
      assert.equal(publicClient.application.pkceRequired, true);
      const location = await authorizeRedirect(t, user, publicClient, {});
      assertRedirectedError(location, publicClient, 'invalid_request');
    });

    it('requires a challenge from a confidential application with pkceRequired', async () => {
      const strict = await createClient(t, user, { confidential: true, pkceRequired: true });
      const location = await authorizeRedirect(t, user, strict, {});
      assertRedirectedError(location, strict, 'invalid_request');
    });

    it('lets a confidential application without the flag omit the challenge', async () => {
      const relaxed = await createClient(t, user, { confidential: true, pkceRequired: false });
      const { code } = await obtainCode(t, relaxed, user);
      assert.equal((await exchange(t, relaxed, code)).statusCode, 200);
    });
  });

  describe('RFC 7636 §4.5–4.6 code verifier at the token endpoint', () => {
    it('exchanges a code with the matching S256 verifier', async () => {
      const { code, verifier } = await obtainCode(t, publicClient, user);
      const response = await exchange(t, publicClient, code, verifier);
      assert.equal(response.statusCode, 200, response.body);
      const api = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(response.json().access_token) });
      assert.equal(api.statusCode, 200);
    });

    it('refuses a wrong verifier with invalid_grant', async () => {
      const { code } = await obtainCode(t, publicClient, user);
      assertInvalidGrant(await exchange(t, publicClient, code, pkcePair().verifier));
    });

    it('leaves the code usable after an attempt without the right verifier (a stolen code cannot be burned)', async () => {
      const { code, verifier } = await obtainCode(t, publicClient, user);
      assertInvalidGrant(await exchange(t, publicClient, code, pkcePair().verifier));
      assertInvalidGrant(await exchange(t, publicClient, code));
      const legitimate = await exchange(t, publicClient, code, verifier);
      assert.equal(legitimate.statusCode, 200, legitimate.body);
    });

    it('refuses a malformed verifier with invalid_grant', async () => {
      const { code } = await obtainCode(t, publicClient, user);
      assertInvalidGrant(await exchange(t, publicClient, code, 'short'));
    });

    it('refuses a missing verifier when a challenge was stored with invalid_grant', async () => {
      const { code } = await obtainCode(t, publicClient, user);
      assertInvalidGrant(await exchange(t, publicClient, code));
    });

    it('refuses a verifier sent for a code that had no challenge with invalid_grant', async () => {
      const relaxed = await createClient(t, user, { confidential: true, pkceRequired: false });
      const { code } = await obtainCode(t, relaxed, user);
      assertInvalidGrant(await exchange(t, relaxed, code, pkcePair().verifier));
    });

    it('enforces the verifier for a confidential application with pkceRequired', async () => {
      const strict = await createClient(t, user, { confidential: true, pkceRequired: true });
      const withoutVerifier = await obtainCode(t, strict, user);
      assertInvalidGrant(await exchange(t, strict, withoutVerifier.code));
      const wrongVerifier = await obtainCode(t, strict, user);
      assertInvalidGrant(await exchange(t, strict, wrongVerifier.code, pkcePair().verifier));
      const right = await obtainCode(t, strict, user);
      assert.equal((await exchange(t, strict, right.code, right.verifier)).statusCode, 200);
    });

    it('binds a challenge a confidential application volunteered to its code', async () => {
      const relaxed = await createClient(t, user, { confidential: true, pkceRequired: false });
      const pkce = pkcePair();
      const { code } = await obtainCode(t, relaxed, user, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
      assertInvalidGrant(await exchange(t, relaxed, code));
      const again = await obtainCode(t, relaxed, user, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
      assert.equal((await exchange(t, relaxed, again.code, pkce.verifier)).statusCode, 200);
    });
  });
});
