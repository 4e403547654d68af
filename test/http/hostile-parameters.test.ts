// Parameters SQLite takes in its stride and PostgreSQL refuses, each of which
// turned a look-up there into a 500: a NUL character (no protocol parameter may
// hold one, RFC 6749 Appendix A, so it is refused where requests are parsed) and
// an id beyond the 32-bit id columns (no record has it: 404).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { openStorage } from '../../src/storage/open.ts';
import { type TestApp, type TestClient, assertError, basic, bearer, createClient, createTestApp, createUser, obtainTokens, signIn } from '../support/app.ts';
import { csrfToken, getPage, postForm } from '../support/pages.ts';
import { TemporaryPostgresDatabase } from '../support/postgres-database.ts';
import { postgresServerUrl, withoutPostgres } from '../support/services.ts';

const urlencoded = { 'content-type': 'application/x-www-form-urlencoded' };

function assertHtmlClientError(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 400, response.body.slice(0, 300));
  assert.match(String(response.headers['content-type']), /^text\/html/);
}

const backends = [
  { name: 'SQLite', open: async () => ({ app: await createTestApp(), drop: async () => {} }) },
  {
    name: 'PostgreSQL',
    skip: withoutPostgres,
    open: async () => {
      const database = new TemporaryPostgresDatabase(postgresServerUrl!);
      const storage = await openStorage(await database.create());
      await storage.migrate();
      const app = await createTestApp({}, { storage });
      return { app, drop: async () => { await storage.close(); await database.drop(); } };
    },
  },
];

for (const backend of backends) {
  describe(`hostile parameters (${backend.name})`, { skip: backend.skip }, () => {
    let t: TestApp;
    let drop: () => Promise<void>;
    let client: TestClient;
    before(async () => {
      ({ app: t, drop } = await backend.open());
      client = await createClient(t, await createUser(t));
    });
    after(async () => {
      await t.close();
      await drop();
    });

    const post = (url: string, payload: string, headers: Record<string, string> = urlencoded) => t.app.inject({ method: 'POST', url, payload, headers });

    for (const path of ['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect']) {
      it(`${path}: a client_id with NUL in a form body is invalid_request`, async () => {
        assertError(await post(path, 'grant_type=client_credentials&token=x&client_id=a%00b&client_secret=x'), 400, 'invalid_request');
      });
    }

    it('a NUL in a JSON body or a multipart field is invalid_request', async () => {
      const json = JSON.stringify({ grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' });
      assertError(await post('/oauth2/token', json, { 'content-type': 'application/json' }), 400, 'invalid_request');
      const multipart = ['--B', 'Content-Disposition: form-data; name="client_id"', '', 'a\u0000b', '--B--', ''].join('\r\n');
      assertError(await post('/oauth2/token', multipart, { 'content-type': 'multipart/form-data; boundary=B' }), 400, 'invalid_request');
    });

    it('Basic credentials with a NUL are invalid_client', async () => {
      const response = await post('/oauth2/token', 'grant_type=client_credentials', { ...urlencoded, ...basic('a\u0000b', client.clientSecret) });
      assertError(response, 401, 'invalid_client');
    });

    it('the authorization endpoint answers a client_id with NUL with its error page', async () => {
      assertHtmlClientError(await t.app.inject({ method: 'GET', url: `/oauth2/authorize?response_type=code&client_id=a%00b&redirect_uri=${encodeURIComponent(client.application.redirectUris[0]!)}` }));
    });

    it('sign-in and sign-up forms answer a NUL with an error page', async () => {
      assertHtmlClientError(await post('/login', 'email=ada%00%40example.com&password=x'));
      assertHtmlClientError(await post('/signup', 'email=ada%00%40example.com&name=Ada&password=correct%20horse%20battery'));
    });

    it('a signed-in form with a NUL in a field is refused and writes nothing', async () => {
      const user = await createUser(t, 'Nul Tester');
      const jar = await signIn(t, user);
      const fields = {
        csrf_token: await csrfToken(t, jar, '/portfolios/new'), name: 'Retire\u0000ment', currency_code: 'NZD', country_code: 'NZ',
        financial_year_end: '03-31', inception_date: '2019-04-01', tz_name: 'Pacific/Auckland', default_sale_allocation_method: 'fifo',
        cg_discount: '', trader: 'false', interest_method: 'compound',
      };
      assertHtmlClientError(await postForm(t, jar, '/portfolios/new', fields));
      assert.deepEqual(await t.storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    });

    it('an id beyond the id columns is not found, in the API and on the pages', async () => {
      const user = await createUser(t, 'Big Id');
      const jar = await signIn(t, user);
      const { access_token: accessToken } = await obtainTokens(t, client, user);
      for (const id of ['2147483648', '999999999999999', '2147483648.json']) {
        const api = await t.app.inject({ method: 'GET', url: `/api/v2/portfolios/${id}`, headers: bearer(accessToken) });
        assert.equal(api.statusCode, 404, api.body);
        assert.equal(api.json().error, 'not_found');
      }
      for (const url of ['/portfolios/2147483648/edit', '/settings/applications/2147483648', '/settings/applications/2147483648/edit']) {
        const page = await getPage(t, jar, url);
        assert.equal(page.statusCode, 404, `${url}: ${page.body.slice(0, 200)}`);
      }
      const revoke = await postForm(t, jar, '/settings/connections/2147483648/revoke', { csrf_token: await csrfToken(t, jar) });
      assert.equal(revoke.statusCode, 404);
    });
  });
}
