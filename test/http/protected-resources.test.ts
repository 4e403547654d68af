// RFC 9728 protected resource metadata, and what a bearer resource answers a token
// it will not take: the WWW-Authenticate challenge that leads a client to the metadata
// (§5.1), the audience a token must have (RFC 8707), and the scope it needs (RFC 6750 §3.1).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, basic, bearer, createClient, createTestApp, createUser, obtainCode, tokenRequest,
} from '../support/app.ts';

const BASE = 'https://folio.example';
const API_METADATA = `${BASE}/.well-known/oauth-protected-resource/api/v2`;

describe('protected resources', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  beforeEach(async () => {
    t = await createTestApp({ FOLIO_BASE_URL: BASE });
    user = await createUser(t);
    client = await createClient(t, user);
  });
  afterEach(async () => { await t.close(); });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  async function tokenFor(resource: string | undefined): Promise<string> {
    const { code } = await obtainCode(t, client, user, resource === undefined ? {} : { resource });
    const response = await tokenRequest(t, {
      grant_type: 'authorization_code', code, redirect_uri: client.application.redirectUris[0]!, client_id: client.clientId, client_secret: client.clientSecret,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().access_token;
  }

  describe('RFC 9728 §3 metadata documents', () => {
    for (const [path, resource, name] of [
      ['/.well-known/oauth-protected-resource/mcp', `${BASE}/mcp`, 'Folio MCP server'],
      ['/.well-known/oauth-protected-resource/api/v2', `${BASE}/api/v2`, 'Folio portfolio API'],
    ] as const) {
      it(`GET ${path} describes ${resource} as public, cacheable JSON`, async () => {
        const response = await get(path);
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        assert.equal(response.headers['cache-control'], 'public, max-age=300');
        assert.deepEqual(response.json(), {
          resource,
          authorization_servers: [BASE],
          scopes_supported: ['read'],
          bearer_methods_supported: ['header'],
          resource_name: name,
          resource_documentation: `${BASE}/developers`,
        });
      });

      it(`refuses POST ${path} with 405`, async () => {
        const response = await t.app.inject({ method: 'POST', url: path });
        assert.equal(response.statusCode, 405);
        assert.equal(response.headers.allow, 'GET, HEAD');
      });
    }

    it('leads a client from a 401 to the authorization server (RFC 9728 §5, RFC 8414 §3)', async () => {
      const challenge = String((await get('/api/v2/portfolios')).headers['www-authenticate']);
      const metadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(challenge)![1]!);
      assert.equal(metadataUrl.origin, BASE);
      const resourceMetadata = (await get(metadataUrl.pathname)).json();
      assert.equal(resourceMetadata.resource, `${BASE}/api/v2`);
      const issuer = new URL(resourceMetadata.authorization_servers[0]);
      const serverMetadata = (await get(`/.well-known/oauth-authorization-server${issuer.pathname === '/' ? '' : issuer.pathname}`)).json();
      assert.equal(serverMetadata.issuer, resourceMetadata.authorization_servers[0]);
    });
  });

  describe('the bearer challenge (RFC 6750 §3, RFC 9728 §5.1)', () => {
    it('answers a request without a token with 401, the scope needed and the resource metadata', async () => {
      const response = await get('/api/v2/my_user');
      assert.equal(response.statusCode, 401);
      assert.equal(response.headers['www-authenticate'], `Bearer realm="folio", scope="read", resource_metadata="${API_METADATA}"`);
    });

    it('names the resource metadata with the error on a bad token, and on token info', async () => {
      for (const path of ['/api/v2/portfolios', '/oauth2/token/info']) {
        const response = await get(path, bearer('not-a-token'));
        assert.equal(response.statusCode, 401);
        assert.equal(response.headers['www-authenticate'],
          `Bearer realm="folio", error="invalid_token", error_description="The access token is malformed", resource_metadata="${API_METADATA}"`);
      }
    });

    it('answers a token without the needed scope with 403 insufficient_scope naming the scope', async () => {
      const now = t.clock.now();
      const grant = await t.storage.grants.findOrCreateActiveGrant(user.id, client.application.id, ['read'], now);
      const raw = generateCredential('accessToken', cryptoRandom, now);
      await t.storage.tokens.saveTokens({ access: {
        tokenHash: hashCredential(raw), grantId: grant.id, applicationId: client.application.id, userId: user.id, scope: [],
        createdAt: now, expiresAt: now + 60_000, revokedAt: null, originCodeHash: null, resource: null,
      } });
      const response = await get('/api/v2/portfolios', bearer(raw));
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error, 'insufficient_scope');
      assert.equal(response.headers['www-authenticate'],
        `Bearer realm="folio", error="insufficient_scope", error_description="This request needs the 'read' scope", scope="read", resource_metadata="${API_METADATA}"`);
      // Token info takes any live token of the API, whatever its scope.
      assert.equal((await get('/oauth2/token/info', bearer(raw))).statusCode, 200);
    });
  });

  describe('the audience of a token (RFC 8707, RFC 9728 §7.4)', () => {
    it('the API refuses a token meant for the MCP server: 401 invalid_token with the resource metadata', async () => {
      const token = await tokenFor(`${BASE}/mcp`);
      for (const path of ['/api/v2/portfolios', '/api/v2/my_user.json', '/oauth2/token/info']) {
        const response = await get(path, bearer(token));
        assert.equal(response.statusCode, 401, path);
        assert.deepEqual(response.json(), { error: 'invalid_token', error_description: 'The access token is not meant for this resource' });
        assert.match(String(response.headers['www-authenticate']), /^Bearer realm="folio", error="invalid_token", .*resource_metadata="[^"]+\/api\/v2"$/);
      }
    });

    it('the API takes tokens meant for it, and those issued without a resource', async () => {
      for (const resource of [`${BASE}/api/v2`, undefined]) {
        const token = await tokenFor(resource);
        assert.equal((await get('/api/v2/portfolios', bearer(token))).statusCode, 200, String(resource));
        assert.equal((await get('/oauth2/token/info', bearer(token))).statusCode, 200, String(resource));
      }
    });

    it('a client_credentials token for the MCP server is refused by the API too', async () => {
      const issued = await tokenRequest(t, { grant_type: 'client_credentials', resource: `${BASE}/mcp` }, basic(client.clientId, client.clientSecret));
      assert.equal((await get('/api/v2/portfolios', bearer(issued.json().access_token))).statusCode, 401);
    });
  });
});
