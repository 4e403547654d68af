// The bearer-protected API: RFC 6750 token handling and the Sharesight v2
// record shape (DESIGN §2 "Bearer API", §5).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, basic, bearer, createClient, createPortfolio, createTestApp, createUser, obtainTokens, tokenRequest,
} from '../support/app.ts';

const BASE = 'http://folio.test';

/** Every field of DESIGN §5 and the JSON type it must have. */
const PORTFOLIO_FIELD_TYPES: Record<string, (value: unknown) => boolean> = {
  id: Number.isInteger,
  name: (v) => typeof v === 'string',
  default_sale_allocation_method: (v) => v === 'fifo',
  cg_discount: (v) => v === null || typeof v === 'string' || typeof v === 'number',
  rwtr_rate: (v) => v === null || typeof v === 'number',
  trader: (v) => v === null || typeof v === 'boolean',
  disable_automatic_transactions: (v) => typeof v === 'boolean',
  tax_entity_type: (v) => v === null || typeof v === 'string',
  broker_email_api_enabled: (v) => typeof v === 'boolean',
  broker_email_key: (v) => v === null || typeof v === 'string',
  financial_year_end_month_id: Number.isInteger,
  financial_year_end: (v) => typeof v === 'string' && /^\d\d-\d\d$/.test(v),
  interest_method: (v) => v === 'simple',
  country_code: (v) => typeof v === 'string' && /^[A-Z]{2}$/.test(v),
  currency_code: (v) => typeof v === 'string' && /^[A-Z]{3}$/.test(v),
  inception_date: (v) => typeof v === 'string' && /^\d\d [A-Z][a-z]{2} \d{4}$/.test(v),
  tz_name: (v) => typeof v === 'string',
  apply_cash_account_adjustments: (v) => typeof v === 'boolean',
  buy_trade_settlement_delay: (v) => v === null || Number.isInteger(v),
  sell_trade_settlement_delay: (v) => v === null || Number.isInteger(v),
  account_for_delayed_cash_transactions: (v) => typeof v === 'boolean',
  trade_sync_cash_account_id: (v) => v === null || Number.isInteger(v),
  payout_sync_cash_account_id: (v) => v === null || Number.isInteger(v),
  external_identifier: (v) => v === null || typeof v === 'string',
  links: (v) => typeof v === 'object' && v !== null,
};

function assertPortfolioRecord(record: Record<string, unknown>) {
  assert.deepEqual(Object.keys(record).sort(), Object.keys(PORTFOLIO_FIELD_TYPES).sort());
  for (const [field, valid] of Object.entries(PORTFOLIO_FIELD_TYPES)) {
    assert.ok(valid(record[field]), `${field} has the wrong type or shape: ${JSON.stringify(record[field])}`);
  }
  assert.deepEqual(record.links, { portfolio: `${BASE}/portfolios/${record.id}`, self: `${BASE}/api/v2/portfolios/${record.id}` });
}

/** RFC 6750 §3.1 without an error code, with the scope needed and RFC 9728 §5.1 resource metadata. */
const BARE_CHALLENGE = `Bearer realm="folio", scope="read", resource_metadata="${BASE}/.well-known/oauth-protected-resource/api/v2"`;

function assertBearerChallenge(header: unknown, error: string | null) {
  assert.equal(typeof header, 'string', 'WWW-Authenticate is present');
  assert.match(header as string, /^Bearer realm="folio"/);
  if (error === null) assert.doesNotMatch(header as string, /error=/);
  else assert.match(header as string, new RegExp(`error="${error}"`));
}

describe('bearer API v2', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  let accessToken: string;
  const api = (url: string, headers: Record<string, string> = bearer(accessToken)) => t.app.inject({ method: 'GET', url, headers });

  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t, 'Ada Investor');
    client = await createClient(t, user);
    accessToken = (await obtainTokens(t, client, user)).access_token;
  });
  afterEach(async () => { await t.close(); });

  describe('portfolios (DESIGN §5)', () => {
    for (const path of ['/api/v2/portfolios', '/api/v2/portfolios.json']) {
      it(`GET ${path} lists the token user's portfolios in the Sharesight envelope`, async () => {
        await createPortfolio(t, user, 'Retirement');
        await createPortfolio(t, user, 'Trading');
        await createPortfolio(t, await createUser(t), 'Someone else');
        const response = await api(path);
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        const body = response.json();
        assert.deepEqual(Object.keys(body).sort(), ['links', 'portfolios']);
        assert.deepEqual(body.links, { self: `${BASE}/api/v2/portfolios` });
        assert.deepEqual(body.portfolios.map((p: { name: string }) => p.name).sort(), ['Retirement', 'Trading']);
        for (const record of body.portfolios) assertPortfolioRecord(record);
      });
    }

    it('answers a repeated list with the same JSON, schema-filtered, and an edited list with the edit', async () => {
      const portfolio = await createPortfolio(t, user, 'Retirement');
      const first = await api('/api/v2/portfolios.json');
      const again = await api('/api/v2/portfolios.json');
      assert.equal(again.body, first.body);
      assert.equal(again.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
      for (const record of again.json().portfolios) assertPortfolioRecord(record);
      const { id: _id, ownerId: _owner, createdAt: _created, updatedAt: _updated, ...fields } = portfolio;
      await t.storage.portfolios.updatePortfolio(portfolio.id, user.id, { ...fields, name: 'Renamed' }, t.clock.now());
      assert.deepEqual((await api('/api/v2/portfolios.json')).json().portfolios.map((p: { name: string }) => p.name), ['Renamed']);
    });

    it('lists nothing, not an error, for a user without portfolios', async () => {
      const response = await api('/api/v2/portfolios.json');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().portfolios, []);
    });

    it('formats dates and the financial year the Sharesight way', async () => {
      const portfolio = await createPortfolio(t, user, 'Retirement');
      const record = (await api(`/api/v2/portfolios/${portfolio.id}`)).json().portfolio;
      assert.equal(record.inception_date, '15 Jan 2026');
      assert.equal(record.financial_year_end, '06-30');
      assert.equal(record.financial_year_end_month_id, 6);
      assert.equal(record.country_code, 'AU');
      assert.equal(record.currency_code, 'AUD');
      assert.equal(record.tz_name, 'Australia/Sydney');
      assert.equal(record.id, portfolio.id);
    });

    for (const suffix of ['', '.json']) {
      it(`GET /api/v2/portfolios/:id${suffix} returns one portfolio with links`, async () => {
        const portfolio = await createPortfolio(t, user, 'Retirement');
        const response = await api(`/api/v2/portfolios/${portfolio.id}${suffix}`);
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.deepEqual(Object.keys(body).sort(), ['links', 'portfolio']);
        assertPortfolioRecord(body.portfolio);
        assert.equal(body.portfolio.name, 'Retirement');
        assert.deepEqual(body.links, { self: `${BASE}/api/v2/portfolios/${portfolio.id}` });
      });
    }

    it("answers 404 for another user's portfolio, as if it did not exist", async () => {
      const theirs = await createPortfolio(t, await createUser(t), 'Not yours');
      const response = await api(`/api/v2/portfolios/${theirs.id}.json`);
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error, 'not_found');
      assert.doesNotMatch(response.body, /Not yours/);
    });

    for (const id of ['abc', '0', '-1', '1e3', '99999999999999999999']) {
      it(`answers 404 JSON for the id ${id}`, async () => {
        await createPortfolio(t, user, 'Retirement');
        const response = await api(`/api/v2/portfolios/${id}`);
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().error, 'not_found');
      });
    }
  });

  describe('my_user', () => {
    for (const path of ['/api/v2/my_user', '/api/v2/my_user.json']) {
      it(`GET ${path} describes the token's user`, async () => {
        const response = await api(path);
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), {
          user: { id: user.id, name: 'Ada Investor', email: user.email },
          links: { self: `${BASE}/api/v2/my_user` },
        });
      });
    }
  });

  describe('RFC 6750 §2.1 the token travels in the Authorization header only', () => {
    it('refuses a token in the query string with 400 invalid_request, even a valid one', async () => {
      const response = await api(`/api/v2/portfolios.json?access_token=${accessToken}`, {});
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error, 'invalid_request');
    });

    it('refuses a query-string token even alongside a valid header', async () => {
      const response = await api(`/api/v2/portfolios.json?access_token=${accessToken}`);
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error, 'invalid_request');
    });

    it('answers the Basic scheme as a request without credentials: 401 and a challenge with no error code (RFC 6750 §3.1)', async () => {
      const response = await api('/api/v2/portfolios', basic(client.clientId, client.clientSecret));
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_token');
      assert.equal(response.headers['www-authenticate'], BARE_CHALLENGE);
    });

    it('answers a malformed Bearer header with 400 invalid_request', async () => {
      const response = await api('/api/v2/portfolios', { authorization: 'Bearer two words' });
      assert.equal(response.statusCode, 400);
      assertBearerChallenge(response.headers['www-authenticate'], 'invalid_request');
    });

    it('accepts the scheme name in any case (RFC 7235 §2.1)', async () => {
      assert.equal((await api('/api/v2/my_user', { authorization: `bearer ${accessToken}` })).statusCode, 200);
    });
  });

  describe('RFC 6750 §3 errors', () => {
    it('answers a request without credentials with 401 and a bare challenge', async () => {
      const response = await api('/api/v2/portfolios', {});
      assert.equal(response.statusCode, 401);
      assert.equal(response.headers['www-authenticate'], BARE_CHALLENGE);
      assert.equal(response.json().error, 'invalid_token');
    });

    async function assertInvalidToken(token: string) {
      const response = await api('/api/v2/portfolios', bearer(token));
      assert.equal(response.statusCode, 401);
      assertBearerChallenge(response.headers['www-authenticate'], 'invalid_token');
      const body = response.json();
      assert.equal(body.error, 'invalid_token');
      assert.equal(typeof body.error_description, 'string');
      return body;
    }

    it('refuses a garbage token with invalid_token', async () => {
      await assertInvalidToken('not-a-real-token');
    });

    it('refuses a well-formed token whose checksum is wrong, and an unknown well-formed one', async () => {
      const last = accessToken.at(-1) === 'A' ? 'B' : 'A';
      await assertInvalidToken(accessToken.slice(0, -1) + last);
      const other = await createTestApp();
      try {
        const stranger = await createUser(other);
        const foreign = (await obtainTokens(other, await createClient(other, stranger), stranger)).access_token;
        await assertInvalidToken(foreign);
      } finally {
        await other.close();
      }
    });

    it('refuses garbage without a database look-up (checksum)', async () => {
      const tokens = t.storage.tokens;
      const original = tokens.findAccessToken;
      let lookups = 0;
      tokens.findAccessToken = async (hash: string) => { lookups++; return original.call(tokens, hash); };
      try {
        await assertInvalidToken('folio_at_' + 'A'.repeat(49));
        await assertInvalidToken('garbage');
        assert.equal(lookups, 0);
        assert.equal((await api('/api/v2/my_user')).statusCode, 200);
        assert.equal(lookups, 1, 'the spy does see real look-ups');
      } finally {
        tokens.findAccessToken = original;
      }
    });

    it('refuses an expired token (30 minutes)', async () => {
      t.clock.advance(1799_000);
      assert.equal((await api('/api/v2/my_user')).statusCode, 200);
      t.clock.advance(1000);
      const body = await assertInvalidToken(accessToken);
      assert.match(body.error_description, /expired/);
    });

    it('refuses a revoked token, at once though it was just served (and so held in memory)', async () => {
      assert.equal((await api('/api/v2/portfolios.json')).statusCode, 200);
      const revoked = await t.app.inject({
        method: 'POST', url: '/oauth2/revoke',
        payload: new URLSearchParams({ token: accessToken, client_id: client.clientId, client_secret: client.clientSecret }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(revoked.statusCode, 200);
      const body = await assertInvalidToken(accessToken);
      assert.match(body.error_description, /revoked/);
    });

    it('answers POST with 405 and Allow: GET', async () => {
      for (const url of ['/api/v2/portfolios', '/api/v2/portfolios.json', '/api/v2/my_user']) {
        const response = await t.app.inject({ method: 'POST', url, headers: bearer(accessToken) });
        assert.equal(response.statusCode, 405, url);
        assert.equal(response.headers.allow, 'GET, HEAD');
        assert.equal(response.json().error, 'method_not_allowed');
      }
    });
  });

  describe('client_credentials tokens', () => {
    it("see the portfolios of the application's owner and no one else's", async () => {
      const developer = await createUser(t, 'Dora Developer');
      const app = await createClient(t, developer);
      await createPortfolio(t, developer, 'Developer fund');
      await createPortfolio(t, user, 'Ada fund');
      const issued = await tokenRequest(t, { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
      assert.equal(issued.statusCode, 200, issued.body);
      const token = issued.json().access_token;
      const list = (await api('/api/v2/portfolios.json', bearer(token))).json();
      assert.deepEqual(list.portfolios.map((p: { name: string }) => p.name), ['Developer fund']);
      const me = (await api('/api/v2/my_user.json', bearer(token))).json();
      assert.equal(me.user.id, developer.id);
    });
  });

  describe('GET /oauth2/token/info', () => {
    it('describes the token: owner, scope, remaining lifetime, application and creation time', async () => {
      t.clock.advance(600_000);
      const response = await api('/oauth2/token/info');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        resource_owner_id: user.id,
        scope: ['read'],
        expires_in: 1200,
        application: { uid: client.clientId },
        created_at: Math.floor(Date.UTC(2026, 0, 15, 9, 0, 0) / 1000),
      });
    });

    it('answers 401 invalid_token without a valid token', async () => {
      const response = await api('/oauth2/token/info', bearer('nope'));
      assert.equal(response.statusCode, 401);
      assertBearerChallenge(response.headers['www-authenticate'], 'invalid_token');
    });
  });
});
