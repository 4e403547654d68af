// @folio/client against a real Folio over real HTTP.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FolioApiError, FolioClient, FolioOAuthError, pkceChallenge } from '../src/index.ts';
import { type LiveFolio, approveInBrowser, countingFetch, startFolio } from './support.ts';

const REDIRECT = 'https://client.example/callback';

describe('@folio/client', () => {
  let folio: LiveFolio;
  beforeEach(async () => { folio = await startFolio(); });
  afterEach(async () => folio.t.close());

  const confidentialClient = (options: Partial<ConstructorParameters<typeof FolioClient>[0]> = {}) => new FolioClient({
    baseUrl: folio.url, clientId: folio.confidential.clientId, clientSecret: folio.confidential.clientSecret, redirectUri: REDIRECT, ...options,
  });

  async function signedIn(client: FolioClient): Promise<void> {
    const request = await client.authorizationUrl();
    const callback = await approveInBrowser(folio, request.url);
    assert.equal(callback.get('state'), request.state);
    await client.exchangeCode({ code: callback.get('code')!, codeVerifier: request.codeVerifier });
  }

  describe('authorization code flow', () => {
    it('builds an authorization URL with state and an S256 PKCE challenge of its verifier', async () => {
      const request = await confidentialClient().authorizationUrl({ state: 'my-state' });
      const url = new URL(request.url);
      assert.equal(url.origin + url.pathname, `${folio.url}/oauth2/authorize`);
      assert.equal(url.searchParams.get('state'), 'my-state');
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(url.searchParams.get('code_challenge'), await pkceChallenge(request.codeVerifier));
      assert.match(request.codeVerifier, /^[A-Za-z0-9_-]{43}$/);
    });

    it('a public client exchanges the code with PKCE and no secret, then calls every endpoint', async () => {
      const client = new FolioClient({ baseUrl: folio.url, clientId: folio.publicClient.clientId, redirectUri: REDIRECT });
      await signedIn(client);
      const list = await client.listPortfolios();
      assert.deepEqual(list.portfolios.map((portfolio) => portfolio.name).sort(), ['Retirement', 'Trading']);
      const one = await client.getPortfolio(list.portfolios[0]!.id);
      assert.equal(one.portfolio.id, list.portfolios[0]!.id);
      assert.equal((await client.myUser()).user.email, folio.user.email);
      assert.deepEqual((await client.tokenInfo()).scope, ['read']);
    });

    it('a confidential client authenticates with its secret', async () => {
      const client = confidentialClient();
      await signedIn(client);
      assert.equal((await client.myUser()).user.id, folio.user.id);
      assert.ok((await client.storage.get())?.refreshToken);
    });
  });

  it('client_credentials: tokens for the owner account, renewed by asking again', async () => {
    const { fetch, grants } = countingFetch();
    let now = Date.now();
    const client = confidentialClient({ fetch, now: () => now });
    const response = await client.clientCredentials();
    assert.equal(response.refresh_token, undefined);
    assert.equal((await client.listPortfolios()).portfolios.length, 2);
    now += 1800_000;
    await client.myUser();
    assert.deepEqual(grants, ['client_credentials', 'client_credentials']);
  });

  describe('refresh', () => {
    it('refreshes within the skew before expiry, not earlier', async () => {
      const { fetch, grants } = countingFetch();
      let now = Date.now();
      const client = confidentialClient({ fetch, now: () => now, refreshSkewSeconds: 60 });
      await signedIn(client);
      now += 1700_000;
      await client.myUser();
      assert.deepEqual(grants, ['authorization_code']);
      now += 50_000; // 50 s left, within the 60 s skew
      await client.myUser();
      assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
    });

    it('sends exactly one refresh request when 20 calls race with an expired token', async () => {
      const { fetch, grants } = countingFetch();
      const client = confidentialClient({ fetch });
      await signedIn(client);
      const stored = (await client.storage.get())!;
      await client.storage.set({ ...stored, expiresAt: Date.now() - 1000 });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? client.listPortfolios() : client.myUser())));
      assert.equal(results.length, 20);
      assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
      const metrics = await (await globalThis.fetch(`${folio.url}/metrics`)).text();
      assert.match(metrics, /^folio_tokens_issued_total\{grant_type="refresh_token"\} 1$/m, 'the server saw one refresh');
    });

    it('on 401 invalid_token refreshes once and retries, also when 20 calls race', async () => {
      const { fetch, grants } = countingFetch();
      const client = confidentialClient({ fetch });
      await signedIn(client);
      folio.t.clock.advance(1801_000); // expired on the server, not yet on the client's clock
      const results = await Promise.all(Array.from({ length: 20 }, () => client.myUser()));
      assert.ok(results.every((result) => result.user.id === folio.user.id));
      assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
    });

    it('gives up after one retry: a second 401 is a FolioApiError', async () => {
      const apiCalls: string[] = [];
      const { fetch: counting, grants } = countingFetch();
      const rejecting: typeof fetch = async (input, init) => {
        if (!String(input).includes('/api/v2/')) return counting(input, init);
        apiCalls.push(String(input));
        return new Response(JSON.stringify({ error: 'invalid_token', error_description: 'nope' }), {
          status: 401, headers: { 'www-authenticate': 'Bearer realm="folio", error="invalid_token"', 'content-type': 'application/json' },
        });
      };
      const client = confidentialClient({ fetch: rejecting });
      await signedIn(client);
      await assert.rejects(client.myUser(), (error: unknown) => error instanceof FolioApiError && error.status === 401 && error.error === 'invalid_token');
      assert.equal(apiCalls.length, 2);
      assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
    });
  });

  describe('typed errors', () => {
    it('a bad secret is FolioOAuthError invalid_client with status 401', async () => {
      const client = confidentialClient({ clientSecret: 'folio_cs_wrong' });
      await assert.rejects(client.clientCredentials(), (error: unknown) => {
        assert.ok(error instanceof FolioOAuthError);
        assert.equal(error.error, 'invalid_client');
        assert.equal(error.status, 401);
        return true;
      });
    });

    it('someone else\'s or a missing portfolio is FolioApiError 404 not_found', async () => {
      const client = confidentialClient();
      await client.clientCredentials();
      await assert.rejects(client.getPortfolio(999999), (error: unknown) => {
        assert.ok(error instanceof FolioApiError);
        assert.equal(error.status, 404);
        assert.equal(error.error, 'not_found');
        return true;
      });
    });
  });

  it('once the user revokes the application, a call fails with invalid_grant and the dead tokens are forgotten', async () => {
    const { fetch: counting, grants } = countingFetch();
    const client = confidentialClient({ fetch: counting });
    await signedIn(client);
    const grant = (await folio.t.storage.grants.listConnectedApplications(folio.user.id))[0]!;
    const now = folio.t.clock.now();
    await folio.t.storage.grants.disconnectApplication(grant.grantId, now, {
      type: 'grant.revoked', userId: folio.user.id, applicationId: grant.applicationId, ip: null, detail: {}, createdAt: now,
    });
    await assert.rejects(client.myUser(), (error: unknown) => error instanceof FolioOAuthError && error.error === 'invalid_grant');
    assert.equal(await client.storage.get(), undefined);
    await assert.rejects(client.myUser(), (error: unknown) => error instanceof FolioOAuthError && error.error === 'no_tokens');
    assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
  });

  it('says how long to wait when rate limited (Retry-After)', async () => {
    await folio.t.close();
    folio = await startFolio({ FOLIO_RATE_LIMIT_PER_MINUTE: '1' });
    const client = confidentialClient();
    await client.clientCredentials();
    await client.myUser();
    await assert.rejects(client.myUser(), (error: unknown) => {
      assert.ok(error instanceof FolioApiError);
      assert.equal(error.status, 429);
      assert.ok(error.retryAfter !== undefined && error.retryAfter > 0 && error.retryAfter <= 60, String(error.retryAfter));
      return true;
    });
  });

  it('signOut revokes the refresh token at the server', async () => {
    const client = confidentialClient();
    await signedIn(client);
    const refreshToken = (await client.storage.get())!.refreshToken!;
    await client.signOut();
    assert.equal(await client.storage.get(), undefined);
    await client.storage.set({ accessToken: 'folio_at_x', refreshToken, expiresAt: 0, grantType: 'refresh_token' });
    await assert.rejects(client.myUser(), (error: unknown) => error instanceof FolioOAuthError && error.error === 'invalid_grant');
  });
});
