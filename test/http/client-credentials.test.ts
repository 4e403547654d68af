// RFC 6749 §4.4 client credentials: confidential applications acting for the
// one account that owns them (spec §5.5, DESIGN §2).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential } from '../../src/platform/secrets.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, assertError, basic, bearer, createClient, createPortfolio, createTestApp, createUser, tokenRequest,
} from '../support/app.ts';
import { createTestStorage } from '../support/storage.ts';

function clientCredentials(t: TestApp, client: TestClient, extra: Record<string, string> = {}) {
  return tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, ...extra });
}

describe('client credentials grant', () => {
  let t: TestApp;
  let owner: User;
  let client: TestClient;
  beforeEach(async () => {
    t = await createTestApp();
    owner = await createUser(t, 'Owen Owner');
    client = await createClient(t, owner);
  });
  afterEach(async () => { await t.close(); });

  describe('RFC 6749 §4.4.2 access token request', () => {
    it('issues an access token to a confidential application with client_secret_post', async () => {
      const response = await clientCredentials(t, client);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers.pragma, 'no-cache');
    });

    it('issues an access token with client_secret_basic', async () => {
      const response = await tokenRequest(t, { grant_type: 'client_credentials' }, basic(client.clientId, client.clientSecret));
      assert.equal(response.statusCode, 200, response.body);
    });

    it('accepts scope=read and refuses an unknown scope with invalid_scope', async () => {
      const read = await clientCredentials(t, client, { scope: 'read' });
      assert.equal(read.statusCode, 200);
      assert.equal(read.json().scope, undefined);
      assertError(await clientCredentials(t, client, { scope: 'write' }), 400, 'invalid_scope');
    });
  });

  describe('RFC 6749 §4.4.3 access token response', () => {
    it('returns no refresh token (and no scope)', async () => {
      const body = (await clientCredentials(t, client)).json();
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'created_at', 'expires_in', 'token_type']);
      assert.equal(body.token_type, 'bearer');
      assert.equal(body.expires_in, 1800);
      assert.equal(body.created_at, Math.floor(t.clock.now() / 1000));
    });
  });

  describe('spec §5.5 the secret is always required', () => {
    it('refuses a confidential application that sends no secret with invalid_client', async () => {
      const response = await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId });
      assertError(response, 401, 'invalid_client');
    });

    it('refuses a wrong secret with invalid_client', async () => {
      assertError(await clientCredentials(t, client, { client_secret: generateCredential('clientSecret', cryptoRandom) }), 401, 'invalid_client');
    });

    it('refuses a public application with unauthorized_client', async () => {
      const publicClient = await createClient(t, owner, { confidential: false });
      const response = await tokenRequest(t, { grant_type: 'client_credentials', client_id: publicClient.clientId });
      assertError(response, 400, 'unauthorized_client');
    });

    it('refuses a public application even when it sends its secret', async () => {
      const publicClient = await createClient(t, owner, { confidential: false });
      assertError(await clientCredentials(t, publicClient), 400, 'unauthorized_client');
      const viaBasic = await tokenRequest(t, { grant_type: 'client_credentials' }, basic(publicClient.clientId, publicClient.clientSecret));
      assertError(viaBasic, 400, 'unauthorized_client');
    });
  });

  describe('spec §1 acting for the owning account', () => {
    it("reads the owner's user record and only the owner's portfolios", async () => {
      const someoneElse = await createUser(t, 'Sam Else');
      await createPortfolio(t, owner, 'Owner Fund');
      await createPortfolio(t, someoneElse, 'Other Fund');
      const { access_token: token } = (await clientCredentials(t, client)).json();

      const me = await t.app.inject({ method: 'GET', url: '/api/v2/my_user.json', headers: bearer(token) });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().user.id, owner.id);

      const list = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(token) });
      assert.equal(list.statusCode, 200);
      assert.deepEqual(list.json().portfolios.map((portfolio: { name: string }) => portfolio.name), ['Owner Fund']);
    });

    it('records token.issued for the owner', async () => {
      await clientCredentials(t, client);
      const events = await t.storage.audit.listEventsForUser(owner.id, 20);
      const issued = events.filter((event) => event.type === 'token.issued');
      assert.equal(issued.length, 1);
      assert.equal(issued[0]!.detail.grant_type, 'client_credentials');
      assert.equal(issued[0]!.applicationId, client.application.id);
    });

    it('issues tokens that expire after 1800 s', async () => {
      const { access_token: token } = (await clientCredentials(t, client)).json();
      t.clock.advance(1800_000);
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(token) });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_token');
    });
  });

  describe('the grant its tokens go on, remembered between issues', () => {
    async function grantOf(token: string): Promise<number> {
      return (await t.storage.tokens.findAccessToken(hashCredential(token)))!.grantId;
    }

    it('issues every token of the application on its one live grant, looking the grant up once', async () => {
      const storage = await createTestStorage();
      let lookUps = 0;
      const grants = storage.grants;
      // The same store, with its look-up counted.
      const countingGrants: typeof grants = Object.assign(Object.create(grants) as typeof grants, {
        findOrCreateActiveGrant: (...args: Parameters<typeof grants.findOrCreateActiveGrant>) => {
          lookUps++;
          return grants.findOrCreateActiveGrant(...args);
        },
      });
      const counted = await createTestApp({}, { storage: { ...storage, grants: countingGrants } });
      try {
        const countedOwner = await createUser(counted);
        const countedClient = await createClient(counted, countedOwner);
        const tokens: string[] = [];
        for (let index = 0; index < 3; index++) {
          const response = await clientCredentials(counted, countedClient);
          assert.equal(response.statusCode, 200, response.body);
          tokens.push(response.json().access_token);
        }
        assert.equal(lookUps, 1);
        const grantIds = await Promise.all(tokens.map(async (token) => (await storage.tokens.findAccessToken(hashCredential(token)))!.grantId));
        assert.equal(new Set(grantIds).size, 1);
      } finally {
        await counted.close();
        await storage.close();
      }
    });

    it('after the owner disconnects the application, issues the next token on a new live grant', async () => {
      const first = (await clientCredentials(t, client)).json().access_token;
      const revokedGrant = await grantOf(first);
      await t.storage.grants.disconnectApplication(revokedGrant, t.clock.now(), {
        type: 'grant.revoked', userId: owner.id, applicationId: client.application.id, ip: null, detail: {}, createdAt: t.clock.now(),
      });

      const response = await clientCredentials(t, client);
      assert.equal(response.statusCode, 200, response.body);
      const second = response.json().access_token;
      const liveGrant = await grantOf(second);
      assert.notEqual(liveGrant, revokedGrant);
      assert.equal((await t.storage.grants.findGrant(liveGrant))!.revokedAt, null);
      assert.notEqual((await t.storage.grants.findGrant(revokedGrant))!.revokedAt, null);
      // Nothing was issued on the revoked grant: its one token is the revoked first one.
      const api = (token: string) => t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(token) });
      assert.equal((await api(first)).statusCode, 401);
      assert.equal((await api(second)).statusCode, 200);
      const issued = (await t.storage.audit.listEventsForUser(owner.id, 20)).filter((event) => event.type === 'token.issued');
      assert.deepEqual(issued.map((event) => event.detail.grant_id).sort(), [revokedGrant, liveGrant].sort());
    });
  });
});
