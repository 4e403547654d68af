// RFC 8707 resource indicators through HTTP: the authorization request, code
// exchange, refresh and client credentials, the audience each token gets, and
// introspection's `aud`.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, approve, assertError, authorizeUrl, basic, bearer, continuationOf, cookieHeader, createClient,
  createTestApp, createUser, form, obtainCode, signIn, tokenRequest,
} from '../support/app.ts';

const BASE = 'http://folio.test';
const API = `${BASE}/api/v2`;
const MCP = `${BASE}/mcp`;

interface Tokens { access_token: string; refresh_token?: string }

describe('RFC 8707 resource indicators', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    client = await createClient(t, user);
  });
  afterEach(async () => { await t.close(); });

  const secret = () => ({ client_id: client.clientId, client_secret: client.clientSecret });
  const exchange = (code: string, extra: Record<string, string> = {}) => tokenRequest(t, {
    grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, ...secret(), ...extra,
  });
  const refresh = (refreshToken: string, extra: Record<string, string> = {}) => tokenRequest(t, {
    grant_type: 'refresh_token', refresh_token: refreshToken, ...secret(), ...extra,
  });
  async function tokensFor(authorizeExtra: Record<string, string>, exchangeExtra: Record<string, string> = {}): Promise<Tokens> {
    const { code } = await obtainCode(t, client, user, authorizeExtra);
    const response = await exchange(code, exchangeExtra);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }
  async function audienceOf(token: string): Promise<string | undefined> {
    const response = await t.app.inject({ method: 'POST', url: '/oauth2/introspect', ...form({ token, ...secret() }) });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().active, true);
    return response.json().aud;
  }
  const portfolios = (token: string) => t.app.inject({ method: 'GET', url: '/api/v2/portfolios', headers: bearer(token) });
  /** An authorization request issues a code on a grant, which then shows among the connected applications. */
  const grantsMade = async () => (await t.storage.grants.listConnectedApplications(user.id)).length;
  /** Every issue of tokens is recorded with them, in one transaction. */
  const issues = async () => (await t.storage.audit.listEventsForUser(user.id, 50, ['token.issued'])).length;

  describe('§2 the authorization request', () => {
    const refusals: [string, string, RegExp][] = [
      ['another server', 'https://elsewhere.example/mcp', /one Folio serves/],
      ['not a URI', 'folio mcp', /absolute URI/],
      ['a relative reference', '/mcp', /absolute URI/],
      ['a fragment', `${MCP}#tools`, /fragment/],
      ['an oversized value', `${MCP}/${'x'.repeat(2100)}`, /at most 2048/],
    ];
    for (const [what, resource, description] of refusals) {
      it(`sends invalid_target back to the client for ${what}, and issues no code`, async () => {
        const jar = await signIn(t, user);
        const response = await t.app.inject({ method: 'GET', url: authorizeUrl(client, { resource }), headers: { cookie: cookieHeader(jar) } });
        const link = continuationOf(response);
        assert.equal(link.origin + link.pathname, client.application.redirectUris[0]);
        assert.equal(link.searchParams.get('error'), 'invalid_target');
        assert.match(link.searchParams.get('error_description')!, description);
        assert.equal(link.searchParams.get('state'), 'xyz-state');
        assert.equal(await grantsMade(), 0);
      });
    }

    it('refuses resource given twice as invalid_target: a token is for one resource', async () => {
      const jar = await signIn(t, user);
      const url = `${authorizeUrl(client, { resource: MCP })}&resource=${encodeURIComponent(API)}`;
      const link = continuationOf(await t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } }));
      assert.equal(link.searchParams.get('error'), 'invalid_target');
      assert.match(link.searchParams.get('error_description')!, /one resource/);
    });

    it('says on the consent page what the application will reach', async () => {
      const jar = await signIn(t, user);
      const page = async (extra: Record<string, string>) =>
        (await t.app.inject({ method: 'GET', url: authorizeUrl(client, { ...extra, prompt: 'consent' }), headers: { cookie: cookieHeader(jar) } })).body;
      assert.match(await page({ resource: MCP }), /It will reach your portfolios through the MCP server at http:\/\/folio.test\/mcp\./);
      assert.match(await page({}), /It will reach your portfolios through the Folio API at http:\/\/folio.test\/api\/v2\./);
    });

    it('binds the code to the resource as Folio spells it, whatever RFC 3986 case the client used', async () => {
      const tokens = await tokensFor({ resource: 'HTTP://Folio.Test:80/mcp' });
      assert.equal(await audienceOf(tokens.access_token), MCP);
    });
  });

  describe('§2.2 the code exchange', () => {
    it('gives the token the resource of the code when the request names none', async () => {
      const tokens = await tokensFor({ resource: MCP });
      assert.equal(await audienceOf(tokens.access_token), MCP);
    });

    it('accepts the resource of the code named again', async () => {
      const tokens = await tokensFor({ resource: MCP }, { resource: MCP });
      assert.equal(await audienceOf(tokens.access_token), MCP);
    });

    it('refuses another resource with invalid_target, and leaves the code for the right request', async () => {
      const { code } = await obtainCode(t, client, user, { resource: MCP });
      assertError(await exchange(code, { resource: API }), 400, 'invalid_target');
      assert.equal(await issues(), 0);
      const retried = await exchange(code, { resource: MCP });
      assert.equal(retried.statusCode, 200, retried.body);
    });

    it('narrows a code without a resource to the portfolio API, never to the MCP server', async () => {
      const { code } = await obtainCode(t, client, user);
      assertError(await exchange(code, { resource: MCP }), 400, 'invalid_target');
      const response = await exchange(code, { resource: API });
      assert.equal(response.statusCode, 200, response.body);
      const tokens: Tokens = response.json();
      assert.equal(await audienceOf(tokens.access_token), API);
      // The refresh token keeps what was granted: none, which can never reach the MCP server.
      assert.equal(await audienceOf(tokens.refresh_token!), undefined);
    });

    it('issues a token without an audience to a client that never names a resource, and the API takes it', async () => {
      const tokens = await tokensFor({});
      assert.equal(await audienceOf(tokens.access_token), undefined);
      assert.equal((await portfolios(tokens.access_token)).statusCode, 200);
    });

    it('answers bad resource values with 400 invalid_target, writing nothing', async () => {
      const { code } = await obtainCode(t, client, user);
      for (const resource of ['not a uri', `${API}#x`, `${API}/${'y'.repeat(3000)}`, 'https://folio.test/api/v2/']) {
        assertError(await exchange(code, { resource }), 400, 'invalid_target');
      }
      const twice = await t.app.inject({
        method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `${new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, ...secret(), resource: API })}&resource=${encodeURIComponent(API)}`,
      });
      assertError(twice, 400, 'invalid_target');
      const asJson = await t.app.inject({
        method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0], ...secret(), resource: 42 }),
      });
      assertError(asJson, 400, 'invalid_target');
      assert.equal(await issues(), 0);
      assert.equal((await exchange(code)).statusCode, 200, 'the code was not spent');
    });
  });

  describe('§2.2 refresh', () => {
    it('keeps the resource of the grant when the refresh names none', async () => {
      const first = await tokensFor({ resource: MCP });
      const response = await refresh(first.refresh_token!);
      assert.equal(response.statusCode, 200, response.body);
      const next: Tokens = response.json();
      assert.equal(await audienceOf(next.access_token), MCP);
      assert.equal(await audienceOf(next.refresh_token!), MCP);
    });

    it('refuses to move a grant for the MCP server to the API, and leaves the refresh token usable', async () => {
      const first = await tokensFor({ resource: MCP });
      assertError(await refresh(first.refresh_token!, { resource: API }), 400, 'invalid_target');
      assert.equal((await refresh(first.refresh_token!, { resource: MCP })).statusCode, 200);
    });

    it('narrows a grant without a resource to the API, and a later refresh still cannot widen it', async () => {
      const first = await tokensFor({});
      const narrowed = await refresh(first.refresh_token!, { resource: API });
      assert.equal(narrowed.statusCode, 200, narrowed.body);
      const second: Tokens = narrowed.json();
      assert.equal(await audienceOf(second.access_token), API);
      assert.equal(await audienceOf(second.refresh_token!), undefined);
      assertError(await refresh(second.refresh_token!, { resource: MCP }), 400, 'invalid_target');
      const plain = await refresh(second.refresh_token!);
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(await audienceOf(plain.json().access_token), undefined);
    });
  });

  describe('client credentials', () => {
    it('binds the token to the resource asked for', async () => {
      const response = await tokenRequest(t, { grant_type: 'client_credentials', resource: MCP }, basic(client.clientId, client.clientSecret));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(await audienceOf(response.json().access_token), MCP);
      assert.equal((await portfolios(response.json().access_token)).statusCode, 401);
    });

    it('refuses a resource Folio does not serve with invalid_target', async () => {
      const response = await tokenRequest(t, { grant_type: 'client_credentials', resource: 'https://elsewhere.example/' }, basic(client.clientId, client.clientSecret));
      assertError(response, 400, 'invalid_target');
      assert.equal(await issues(), 0);
    });
  });

  it('approving on the consent form carries the resource through to the code', async () => {
    const jar = await signIn(t, user);
    const location = await approve(t, jar, authorizeUrl(client, { resource: MCP, prompt: 'consent' }));
    const response = await exchange(location.searchParams.get('code')!);
    assert.equal(await audienceOf(response.json().access_token), MCP);
  });
});
