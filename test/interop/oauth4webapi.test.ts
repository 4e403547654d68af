// oauth4webapi v3 drives Folio over real HTTP (RFC 8414 discovery, not OIDC).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { type LiveFolio, REDIRECT_URI, approveInBrowser, startFolio } from './support.ts';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('interop: oauth4webapi v3', () => {
  let folio: LiveFolio;
  let as: oauth.AuthorizationServer;
  before(async () => {
    folio = await startFolio();
    const issuer = new URL(folio.issuer);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  after(async () => folio.t.close());

  const confidential = () => ({ client: { client_id: folio.confidential.clientId }, auth: oauth.ClientSecretBasic(folio.confidential.clientSecret) });
  const publicClient = () => ({ client: { client_id: folio.publicClient.clientId }, auth: oauth.None() });

  async function codeFlow({ client, auth }: { client: oauth.Client; auth: oauth.ClientAuth }) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }).toString();
    const callback = await approveInBrowser(folio, url);
    // Checks state and iss (RFC 9207: the metadata says Folio sends it).
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT_URI, verifier, insecure);
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  const apiGet = (accessToken: string, path: string) => oauth.protectedResourceRequest(accessToken, 'GET', new URL(path, folio.issuer), undefined, undefined, insecure);

  it('discovers the RFC 8414 metadata', () => {
    assert.equal(as.issuer, folio.issuer);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.deepEqual(as.grant_types_supported?.slice().sort(), ['authorization_code', 'client_credentials', 'refresh_token']);
  });

  it('client_credentials, then an API call', async () => {
    const { client, auth } = confidential();
    const response = await oauth.clientCredentialsGrantRequest(as, client, auth, {}, insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal((tokens as { created_at?: unknown }).created_at !== undefined, true, 'extra members pass through');
    const api = await apiGet(tokens.access_token, '/api/v2/portfolios');
    assert.equal(api.status, 200);
    assert.equal((await api.json()).portfolios[0].name, 'Interop Fund');
  });

  it('authorization code with PKCE for a confidential client: exchange, refresh, revoke, API', async () => {
    const { client, auth } = confidential();
    const tokens = await codeFlow({ client, auth });
    assert.equal((await (await apiGet(tokens.access_token, '/api/v2/my_user.json')).json()).user.email, folio.user.email);
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure));
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, refreshed.access_token, insecure));
    // Quirk: a 401 with a WWW-Authenticate challenge is thrown, not returned.
    await assert.rejects(apiGet(refreshed.access_token, '/api/v2/my_user'), (error: unknown) => {
      assert.ok(error instanceof oauth.WWWAuthenticateChallengeError);
      assert.equal(error.status, 401);
      assert.equal(error.cause[0]?.parameters.error, 'invalid_token');
      return true;
    });
  });

  it('authorization code with PKCE for a public client (no secret), then refresh and revoke', async () => {
    const { client, auth } = publicClient();
    const tokens = await codeFlow({ client, auth });
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure));
    assert.equal((await apiGet(refreshed.access_token, '/oauth2/token/info')).status, 200);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure));
    const again = await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, insecure);
    await assert.rejects(oauth.processRefreshTokenResponse(as, client, again), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError);
      assert.equal(error.error, 'invalid_grant');
      return true;
    });
  });

  it('refuses a callback from another issuer', async () => {
    const { client } = confidential();
    const forged = new URL(`${REDIRECT_URI}?code=x&state=s&iss=${encodeURIComponent('https://evil.example')}`);
    assert.throws(() => oauth.validateAuthResponse(as, client, forged, 's'));
  });
});
