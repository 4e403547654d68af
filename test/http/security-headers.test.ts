// Pages that handle credentials or codes cannot be framed, cached or leak a
// code through Referer; there is no CORS (DESIGN §2, RFC 6749 §10.13, RFC 9700 §4.2.4).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, authorizeUrl, bearer, cookieHeader, cookiesFrom, createClient, createTestApp, createUser, form, hiddenField, obtainTokens, signIn,
} from '../support/app.ts';

function assertProtectiveHeaders(response: LightMyRequestResponse, label: string) {
  const csp = String(response.headers['content-security-policy'] ?? '');
  assert.match(csp, /(^|;\s*)frame-ancestors 'none'(;|$)/, `${label}: CSP frame-ancestors`);
  assert.equal(response.headers['x-frame-options'], 'DENY', `${label}: X-Frame-Options`);
  assert.equal(response.headers['referrer-policy'], 'no-referrer', `${label}: Referrer-Policy`);
  assert.equal(response.headers['cache-control'], 'no-store', `${label}: Cache-Control`);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', `${label}: X-Content-Type-Options`);
}

function assertNoCors(response: LightMyRequestResponse, label: string) {
  for (const name of Object.keys(response.headers)) {
    assert.ok(!name.toLowerCase().startsWith('access-control-'), `${label}: unexpected ${name}`);
  }
}

describe('security headers', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let jar: Record<string, string>;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    client = await createClient(t, user);
    jar = await signIn(t, user);
  });
  afterEach(async () => { await t.close(); });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar), ...headers } });

  describe('pages that handle credentials or codes', () => {
    it('the sign-in page', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/login' });
      assert.equal(response.statusCode, 200);
      assertProtectiveHeaders(response, 'GET /login');
    });

    it('a failed sign-in', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/login' });
      const response = await t.app.inject({
        method: 'POST', url: '/login', ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), email: user.email, password: 'wrong' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(cookiesFrom(page)) },
      });
      assert.equal(response.statusCode, 401);
      assertProtectiveHeaders(response, 'POST /login');
    });

    it('the consent page', async () => {
      const response = await get(authorizeUrl(client));
      assert.equal(response.statusCode, 200);
      assertProtectiveHeaders(response, 'consent page');
    });

    it('the redirect that carries a code, and the consent answer', async () => {
      const consent = await get(authorizeUrl(client));
      const fields: Record<string, string> = {};
      for (const match of consent.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = hiddenField(match[0], match[1]!);
      const answer = await t.app.inject({ method: 'POST', url: '/oauth2/authorize', ...form({ ...fields, decision: 'approve' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
      assert.equal(answer.statusCode, 303);
      assertProtectiveHeaders(answer, 'POST /oauth2/authorize');
      const remembered = await get(authorizeUrl(client));
      assert.equal(remembered.statusCode, 302);
      assertProtectiveHeaders(remembered, 'code redirect');
    });

    it('the authorization error page', async () => {
      const response = await get(authorizeUrl(client, { client_id: 'unknown' }));
      assert.equal(response.statusCode, 400);
      assertProtectiveHeaders(response, 'error page');
    });

    it('the out-of-band code page', async () => {
      const response = await get('/oauth2/authorize/native');
      assert.equal(response.statusCode, 200);
      assertProtectiveHeaders(response, 'native code page');
    });

    it('the API, the token endpoint and errors too', async () => {
      const tokens = await obtainTokens(t, client, user);
      assertProtectiveHeaders(await get('/api/v2/portfolios', bearer(tokens.access_token)), 'API');
      assertProtectiveHeaders(await t.app.inject({ method: 'GET', url: '/nowhere' }), '404');
    });
  });

  describe('no CORS', () => {
    const origin = { origin: 'https://evil.example' };

    it('sends no Access-Control-* headers to a cross-origin request on any route', async () => {
      const tokens = await obtainTokens(t, client, user);
      const responses: [string, LightMyRequestResponse][] = [
        ['GET /login', await get('/login', origin)],
        ['GET /oauth2/authorize', await get(authorizeUrl(client), origin)],
        ['GET /api/v2/portfolios', await get('/api/v2/portfolios', { ...origin, ...bearer(tokens.access_token) })],
        ['GET /oauth2/token/info', await get('/oauth2/token/info', { ...origin, ...bearer(tokens.access_token) })],
        ['POST /oauth2/token', await t.app.inject({ method: 'POST', url: '/oauth2/token', ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', ...origin } })],
      ];
      for (const [label, response] of responses) assertNoCors(response, label);
    });

    it('does not answer a CORS preflight', async () => {
      for (const url of ['/oauth2/token', '/api/v2/portfolios', '/oauth2/authorize']) {
        const response = await t.app.inject({
          method: 'OPTIONS', url, headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
        });
        assert.equal(response.statusCode, 405, url);
        assertNoCors(response, `OPTIONS ${url}`);
      }
    });
  });
});
