// simple-oauth2 v5, the most used OAuth client for Node after openid-client, drives
// Folio over real HTTP. Its HTTP client requires JSON in every answer it reads,
// revocation's included (RFC 7009 §2.2 lets Folio answer `{}`).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AuthorizationCode, ClientCredentials } from 'simple-oauth2';
import { type LiveFolio, REDIRECT_URI, approveInBrowser, startFolio } from './support.ts';

describe('interop: simple-oauth2 v5', () => {
  let folio: LiveFolio;
  before(async () => { folio = await startFolio(); });
  after(async () => folio.t.close());

  const config = () => ({
    client: { id: folio.confidential.clientId, secret: folio.confidential.clientSecret },
    auth: { tokenHost: folio.issuer, tokenPath: '/oauth2/token', revokePath: '/oauth2/revoke' },
  });
  const apiGet = (accessToken: string, path: string) => fetch(new URL(path, folio.issuer), { headers: { authorization: `Bearer ${accessToken}` } });

  it('client_credentials, then an API call', async () => {
    const token = await new ClientCredentials(config()).getToken({});
    assert.equal(token.token.token_type, 'bearer');
    assert.equal(token.expired(), false);
    const api = await apiGet(token.token.access_token as string, '/api/v2/portfolios.json');
    assert.equal(api.status, 200);
    assert.equal((await api.json()).portfolios[0].name, 'Interop Fund');
  });

  it('authorization code with PKCE: exchange, refresh, revoke both tokens, API refused', async () => {
    const client = new AuthorizationCode({ ...config(), auth: { ...config().auth, authorizePath: '/oauth2/authorize' } });
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const url = new URL(client.authorizeURL({ redirect_uri: REDIRECT_URI, state }));
    url.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
    const callback = await approveInBrowser(folio, url);
    assert.equal(callback.searchParams.get('state'), state);
    // Its types list no code_verifier, yet it sends every parameter it is given (RFC 7636 §4.5).
    const exchange = { code: callback.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    const token = await client.getToken(exchange as Parameters<typeof client.getToken>[0]);
    assert.equal((await apiGet(token.token.access_token as string, '/api/v2/my_user.json')).status, 200);
    const refreshed = await token.refresh();
    assert.notEqual(refreshed.token.refresh_token, token.token.refresh_token);
    await refreshed.revokeAll();
    assert.equal((await apiGet(refreshed.token.access_token as string, '/api/v2/my_user.json')).status, 401);
    await assert.rejects(refreshed.refresh(), (error: { output?: { statusCode?: number }; data?: { payload?: { error?: string } } }) => {
      assert.equal(error.output?.statusCode, 400);
      assert.equal(error.data?.payload?.error, 'invalid_grant');
      return true;
    });
  });
});
