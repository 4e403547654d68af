// Prometheus metrics at /metrics: bounded labels, one registry per app.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, basic, bearer, createClient, createTestApp, createUser, obtainTokens, tokenRequest,
} from '../support/app.ts';

describe('GET /metrics', () => {
  let t: TestApp;
  let user: User;
  let client: TestClient;
  beforeEach(async () => {
    t = await createTestApp({ FOLIO_RATE_LIMIT_PER_MINUTE: '2' });
    user = await createUser(t);
    client = await createClient(t, user);
  });
  afterEach(async () => t.close());

  async function scrape(): Promise<string> {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    return response.body;
  }

  /** The value of one sample, e.g. sample(text, 'folio_tokens_issued_total{grant_type="client_credentials"}'). */
  function sample(text: string, series: string): number | undefined {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  }

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const token = (await obtainTokens(t, client, user)).access_token;
    await t.app.inject({ method: 'GET', url: '/api/v2/portfolios/123', headers: bearer(token) });
    await t.app.inject({ method: 'GET', url: '/api/v2/portfolios/456.json', headers: bearer(token) });
    await t.app.inject({ method: 'GET', url: '/no/such/secret-path-abc' });
    const text = await scrape();
    assert.equal(sample(text, 'folio_http_requests_total{route="/api/v2/portfolios/:id",method="GET",status="404"}'), 2);
    assert.equal(sample(text, 'folio_http_requests_total{route="unmatched",method="GET",status="404"}'), 1);
    assert.doesNotMatch(text, /secret-path-abc|456\.json/);
    assert.doesNotMatch(text, new RegExp(token));
    assert.equal(sample(text, 'folio_http_request_duration_seconds_count{route="/api/v2/portfolios/:id",method="GET"}'), 2);
  });

  it('counts tokens issued by grant type, only on success', async () => {
    await obtainTokens(t, client, user);
    const credentials = { grant_type: 'client_credentials' };
    assert.equal((await tokenRequest(t, credentials, basic(client.clientId, client.clientSecret))).statusCode, 200);
    assert.equal((await tokenRequest(t, credentials, basic(client.clientId, client.clientSecret))).statusCode, 200);
    assert.equal((await tokenRequest(t, credentials, basic(client.clientId, 'wrong'))).statusCode, 401);
    const text = await scrape();
    assert.equal(sample(text, 'folio_tokens_issued_total{grant_type="authorization_code"}'), 1);
    assert.equal(sample(text, 'folio_tokens_issued_total{grant_type="client_credentials"}'), 2);
    assert.equal(sample(text, 'folio_tokens_issued_total{grant_type="refresh_token"}'), undefined);
  });

  it('counts error answers by OAuth error code', async () => {
    await tokenRequest(t, { grant_type: 'client_credentials' }, basic(client.clientId, 'wrong'));
    await tokenRequest(t, { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret });
    await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer('folio_at_nope') });
    await t.app.inject({ method: 'DELETE', url: '/oauth2/token' });
    const text = await scrape();
    assert.equal(sample(text, 'folio_oauth_errors_total{error="invalid_client"}'), 1);
    assert.equal(sample(text, 'folio_oauth_errors_total{error="unsupported_grant_type"}'), 1);
    assert.equal(sample(text, 'folio_oauth_errors_total{error="invalid_token"}'), 1);
    assert.equal(sample(text, 'folio_oauth_errors_total{error="method_not_allowed"}'), 1);
  });

  it('counts paths refused before routing (bad percent-encoding, an overlong parameter)', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v2/portfolios/%zz' });
    await t.app.inject({ method: 'GET', url: `/api/v2/portfolios/${'9'.repeat(101)}` });
    const text = await scrape();
    assert.equal(sample(text, 'folio_http_requests_total{route="unmatched",method="GET",status="400"}'), 2);
    assert.equal(sample(text, 'folio_oauth_errors_total{error="invalid_request"}'), 2);
    assert.doesNotMatch(text, /%zz|9{101}/);
  });

  it('counts rate-limit rejections', async () => {
    const token = (await obtainTokens(t, client, user)).access_token;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(token) })).statusCode);
    assert.deepEqual(statuses, [200, 200, 429, 429]);
    const text = await scrape();
    assert.equal(sample(text, 'folio_rate_limit_rejections_total'), 2);
    assert.equal(sample(text, 'folio_oauth_errors_total{error="rate_limited"}'), 2);
  });

  it('says, when scraped, whether bearer reads are answered from memory', async () => {
    assert.equal(sample(await scrape(), 'folio_reads_from_memory'), 1); // SQLite: always
    // As on PostgreSQL while no connection hears other instances' changes.
    t.storage.readsFromMemory = () => false;
    assert.equal(sample(await scrape(), 'folio_reads_from_memory'), 0);
  });

  it('asks for the bearer token FOLIO_METRICS_TOKEN names, when it is set', async () => {
    const token = 'f'.repeat(16) + 'metrics-token-0123';
    const guarded = await createTestApp({ FOLIO_METRICS_TOKEN: token });
    try {
      const scrapeWith = (headers: Record<string, string>) => guarded.app.inject({ method: 'GET', url: '/metrics', headers });
      const anonymous = await scrapeWith({});
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.headers['www-authenticate'], 'Bearer realm="folio"');
      assert.equal(anonymous.json().error, 'invalid_token');
      for (const authorization of [`Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, `Bearer ${'x'.repeat(10_000)}`, 'Bearer']) {
        const refused = await scrapeWith({ authorization });
        assert.equal(refused.statusCode, 401, authorization.slice(0, 40));
        assert.doesNotMatch(refused.body, /folio_http_requests_total/);
      }
      const allowed = await scrapeWith({ authorization: `Bearer ${token}` });
      assert.equal(allowed.statusCode, 200);
      assert.match(allowed.body, /folio_http_requests_total/);
    } finally {
      await guarded.close();
    }
  });

  it('keeps one registry per app: another app starts from zero', async () => {
    await tokenRequest(t, { grant_type: 'client_credentials' }, basic(client.clientId, client.clientSecret));
    const other = await createTestApp();
    try {
      const text = (await other.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.equal(sample(text, 'folio_tokens_issued_total{grant_type="client_credentials"}'), undefined);
    } finally {
      await other.close();
    }
  });
});
