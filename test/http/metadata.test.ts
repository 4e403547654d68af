// RFC 8414 authorization server metadata at /.well-known/oauth-authorization-server.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createGrantRegistry } from '../../src/oauth/grants/registry.ts';
import { protectedResources } from '../../src/oauth/resources.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { type TestApp, createTestApp } from '../support/app.ts';

const BASE_URL = 'https://auth.folio.example';

describe('authorization server metadata', () => {
  let t: TestApp;
  beforeEach(async () => { t = await createTestApp({ FOLIO_BASE_URL: BASE_URL }); });
  afterEach(async () => { await t.close(); });

  async function metadata() {
    const response = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    return response.json();
  }

  describe('RFC 8414 §2 metadata document', () => {
    it('names FOLIO_BASE_URL as the issuer', async () => {
      assert.equal((await metadata()).issuer, BASE_URL);
    });

    it('lists the endpoints under the issuer', async () => {
      const document = await metadata();
      assert.equal(document.authorization_endpoint, `${BASE_URL}/oauth2/authorize`);
      assert.equal(document.token_endpoint, `${BASE_URL}/oauth2/token`);
      assert.equal(document.revocation_endpoint, `${BASE_URL}/oauth2/revoke`);
      assert.equal(document.introspection_endpoint, `${BASE_URL}/oauth2/introspect`);
    });

    it('lists exactly the grant types the token endpoint dispatches on', async () => {
      const registry = createGrantRegistry({ ...t.storage, clock: t.clock, random: cryptoRandom, resources: protectedResources(BASE_URL) });
      const document = await metadata();
      assert.deepEqual(document.grant_types_supported, [...registry.keys()]);
      assert.deepEqual([...document.grant_types_supported].sort(), ['authorization_code', 'client_credentials', 'refresh_token']);
    });

    it('offers S256 as the only PKCE method', async () => {
      assert.deepEqual((await metadata()).code_challenge_methods_supported, ['S256']);
    });

    it('lists client_secret_basic, client_secret_post and none for the token endpoint', async () => {
      const methods: string[] = (await metadata()).token_endpoint_auth_methods_supported;
      for (const method of ['client_secret_basic', 'client_secret_post', 'none']) assert.ok(methods.includes(method), method);
    });

    it('does not offer "none" for introspection, which needs a confidential client', async () => {
      const methods: string[] = (await metadata()).introspection_endpoint_auth_methods_supported;
      assert.ok(!methods.includes('none'));
      assert.ok(methods.includes('client_secret_basic'));
    });

    it('lists the read scope and the code response type', async () => {
      const document = await metadata();
      assert.deepEqual(document.scopes_supported, ['read']);
      assert.deepEqual(document.response_types_supported, ['code']);
    });

    it('announces the RFC 9207 iss parameter', async () => {
      assert.equal((await metadata()).authorization_response_iss_parameter_supported, true);
    });
  });

  describe('RFC 8414 §3 metadata request', () => {
    it('refuses POST with 405 and Allow: GET, HEAD', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/.well-known/oauth-authorization-server' });
      assert.equal(response.statusCode, 405);
      assert.equal(response.headers.allow, 'GET, HEAD');
    });
  });
});
