// openid-client v6 drives Folio over real HTTP (RFC 8414 discovery, not OIDC).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { type LiveFolio, REDIRECT_URI, approveInBrowser, startFolio } from './support.ts';

describe('interop: openid-client v6', () => {
  let folio: LiveFolio;
  before(async () => { folio = await startFolio(); });
  after(async () => folio.t.close());

  const options = { algorithm: 'oauth2' as const, execute: [oidc.allowInsecureRequests] };
  const confidential = () => oidc.discovery(new URL(folio.issuer), folio.confidential.clientId, folio.confidential.clientSecret, oidc.ClientSecretBasic(folio.confidential.clientSecret), options);
  const publicClient = () => oidc.discovery(new URL(folio.issuer), folio.publicClient.clientId, undefined, oidc.None(), options);

  async function codeFlow(config: oidc.Configuration) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI, state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const callback = await approveInBrowser(folio, url);
    // The library checks state and iss (RFC 9207) before it sends the code.
    return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  }

  async function apiGet(config: oidc.Configuration, accessToken: string, path: string) {
    const response = await oidc.fetchProtectedResource(config, accessToken, new URL(path, folio.issuer), 'GET');
    return { status: response.status, body: response.status === 200 ? await response.json() : undefined };
  }

  it('discovers the RFC 8414 metadata', async () => {
    const metadata = (await confidential()).serverMetadata();
    assert.equal(metadata.issuer, folio.issuer);
    assert.equal(metadata.token_endpoint, `${folio.issuer}/oauth2/token`);
    assert.ok(metadata.code_challenge_methods_supported?.includes('S256'));
  });

  it('client_credentials, then an API call', async () => {
    const config = await confidential();
    const tokens = await oidc.clientCredentialsGrant(config);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 1800);
    assert.equal(tokens.refresh_token, undefined);
    const { status, body } = await apiGet(config, tokens.access_token, '/api/v2/portfolios.json');
    assert.equal(status, 200);
    assert.deepEqual(body.portfolios.map((portfolio: { name: string }) => portfolio.name), ['Interop Fund']);
  });

  it('authorization code with PKCE for a confidential client: exchange, refresh, revoke, API', async () => {
    const config = await confidential();
    const tokens = await codeFlow(config);
    assert.equal(tokens.scope, undefined, 'Folio leaves scope out when it is what was asked');
    assert.equal((await apiGet(config, tokens.access_token, '/api/v2/my_user')).body.user.email, folio.user.email);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'rotated');
    await oidc.tokenRevocation(config, refreshed.access_token);
    // Quirk: a 401 with a WWW-Authenticate challenge is thrown, not returned.
    await assert.rejects(apiGet(config, refreshed.access_token, '/api/v2/my_user'), (error: unknown) => {
      assert.ok(error instanceof oidc.WWWAuthenticateChallengeError);
      assert.equal(error.status, 401);
      assert.equal(error.cause[0]?.scheme, 'bearer');
      assert.equal(error.cause[0]?.parameters.error, 'invalid_token');
      return true;
    });
  });

  it('authorization code with PKCE for a public client (no secret), then refresh', async () => {
    const config = await publicClient();
    const tokens = await codeFlow(config);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.equal((await apiGet(config, refreshed.access_token, '/oauth2/token/info')).body.application.uid, folio.publicClient.clientId);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token!), (error: unknown) => {
      assert.ok(error instanceof oidc.ResponseBodyError);
      assert.equal(error.error, 'invalid_grant');
      return true;
    });
  });

  it('rejects a callback whose state is not the expected one', async () => {
    const config = await confidential();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, state: 'the-real-state' });
    const callback = await approveInBrowser(folio, url);
    await assert.rejects(oidc.authorizationCodeGrant(config, callback, { expectedState: 'another-state' }));
  });
});
