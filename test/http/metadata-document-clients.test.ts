// Clients whose client_id is the URL of their metadata document
// (draft-ietf-oauth-client-id-metadata-document), served here from 127.0.0.1, which
// Folio fetches over plain http only outside production. End to end at the HTTP
// level: authorize, consent, code, token with PKCE, connections, revocation; and
// every bad document a clear 400 page with nothing stored.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.ts';
import {
  type TestApp, approve, assertError, bearer, createTestAppWithDatabase, createUser, pkcePair, signIn, tokenRequest,
} from '../support/app.ts';
import { getPage, postForm } from '../support/pages.ts';
import { FETCH_BUDGET } from '../../src/oauth/metadata-document-clients.ts';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** What each path of the document server answers. */
const documents = new Map<string, (response: ServerResponse, url: string) => void>();
let server: Server;
let origin: string;

const json = (body: unknown) => (response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

before(async () => {
  server = createServer((request, response) => {
    const answer = documents.get(request.url ?? '');
    if (answer === undefined) response.writeHead(404).end();
    else answer(response, `${origin}${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  documents.set('/assistant.json', (response, url) => json({ client_id: url, client_name: 'Desk <Assistant>', redirect_uris: [REDIRECT_URI] })(response));
  documents.set('/mismatch.json', json({ client_id: 'http://127.0.0.1/other.json', redirect_uris: [REDIRECT_URI] }));
  documents.set('/not-json.json', (response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id": '));
  documents.set('/html.json', (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hi</h1>'));
  documents.set('/huge.json', (response, url) => json({ client_id: url, redirect_uris: [REDIRECT_URI], padding: 'x'.repeat(10_000) })(response));
  documents.set('/slow.json', (response, url) => { setTimeout(() => json({ client_id: url, redirect_uris: [REDIRECT_URI] })(response), 1000).unref(); });
  documents.set('/secret.json', (response, url) => json({ client_id: url, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' })(response));
});
after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));

let t: TestApp;
let db: Kysely<Database>;
afterEach(async () => t?.close());

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const started = await createTestAppWithDatabase(env, { clientDocumentTimeoutMs: 300 });
  db = started.db;
  return started.t;
}

function authorizeUrl(clientId: string, extra: Record<string, string> = {}): string {
  return `/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, state: 's', ...extra })}`;
}

async function storedClients(): Promise<number> {
  return (await db.selectFrom('applications').select('id').where('registration', '=', 'metadata_document').execute()).length;
}

describe('a client known by its metadata document', () => {
  it('authorizes with consent, exchanges its code with PKCE, and is listed and revoked like any application', async () => {
    t = await start();
    const clientId = `${origin}/assistant.json`;
    const user = await createUser(t);
    const jar = await signIn(t, user);
    const pkce = pkcePair();
    const url = authorizeUrl(clientId, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });

    const consent = await getPage(t, jar, url);
    assert.equal(consent.statusCode, 200, consent.body.slice(0, 300));
    assert.match(consent.body, /Desk &lt;Assistant&gt;/);
    assert.match(consent.body, new RegExp(`Described by 127\\.0\\.0\\.1:${new URL(origin).port}`));
    assert.match(consent.body, /not registered on Folio/);
    assert.match(consent.body, /returns to this computer \(localhost\)/);
    assert.match(consent.body, /sent back to <strong>127\.0\.0\.1:8765<\/strong>/);

    const location = await approve(t, jar, url);
    const code = location.searchParams.get('code')!;
    const exchanged = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: pkce.verifier });
    assert.equal(exchanged.statusCode, 200, exchanged.body);
    const { access_token: accessToken, refresh_token: refreshToken } = exchanged.json();
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(accessToken) })).statusCode, 200);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    // A document cannot carry a secret, so any secret sent is wrong.
    assertError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshed.json().refresh_token, client_id: clientId, client_secret: 'folio_cs_guess' }), 401, 'invalid_client');

    const connections = await getPage(t, jar, '/settings/connections');
    assert.match(connections.body, /Desk &lt;Assistant&gt;/);
    assert.match(connections.body, /Described by 127\.0\.0\.1/);
    const grantId = /\/settings\/connections\/(\d+)\/revoke/.exec(connections.body)![1]!;
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(connections.body)![1]!;
    assert.equal((await postForm(t, jar, `/settings/connections/${grantId}/revoke`, { csrf_token: csrf })).statusCode, 303);
    assertError(await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(refreshed.json().access_token) }), 401, 'invalid_token');
    assert.equal(await storedClients(), 1);
  });

  it('refuses a redirect URI its document does not list, on a page and never by redirect', async () => {
    t = await start();
    const user = await createUser(t);
    const jar = await signIn(t, user);
    const response = await getPage(t, jar, authorizeUrl(`${origin}/assistant.json`).replace(encodeURIComponent(REDIRECT_URI), encodeURIComponent('http://127.0.0.1:8765/elsewhere')));
    assert.equal(response.statusCode, 400);
    assert.equal(response.headers.location, undefined);
    assert.match(response.body, /redirect_uri is not registered/);
  });
});

describe('fetches of metadata documents, which any visitor can ask for', () => {
  it(`are limited to ${FETCH_BUDGET.perHostPerMinute} a minute from one host, then refused on a page without a fetch`, async () => {
    t = await start();
    let fetched = 0;
    const suffixes = [...Array.from({ length: FETCH_BUDGET.perHostPerMinute }, (_, n) => String(n)), 'last', 'later'];
    for (const n of suffixes) documents.set(`/counted.json?n=${n}`, (response) => { fetched++; response.writeHead(404).end(); });
    for (let n = 0; n < FETCH_BUDGET.perHostPerMinute; n++) {
      assert.match((await t.app.inject({ method: 'GET', url: authorizeUrl(`${origin}/counted.json?n=${n}`) })).body, /answered HTTP 404/);
    }
    const refused = await t.app.inject({ method: 'GET', url: authorizeUrl(`${origin}/counted.json?n=last`) });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /fetched too many client documents from 127\.0\.0\.1:\d+ in the last minute/);
    assert.equal(fetched, FETCH_BUDGET.perHostPerMinute);
    t.clock.advance(61_000);
    assert.match((await t.app.inject({ method: 'GET', url: authorizeUrl(`${origin}/counted.json?n=later`) })).body, /answered HTTP 404/);
    assert.equal(fetched, FETCH_BUDGET.perHostPerMinute + 1);
  });

  it(`are limited to ${FETCH_BUDGET.inAllPerMinute} a minute in all, however many hosts share them`, async () => {
    t = await start();
    // Loopback addresses where nothing listens: the budget is spent before each fetch, which then fails.
    const hosts = Math.ceil(FETCH_BUDGET.inAllPerMinute / FETCH_BUDGET.perHostPerMinute);
    for (let n = 0; n < FETCH_BUDGET.inAllPerMinute; n++) {
      const page = await t.app.inject({ method: 'GET', url: authorizeUrl(`http://127.0.0.${2 + (n % hosts)}:9/${n}.json`) });
      assert.doesNotMatch(page.body, /fetched too many/);
    }
    const refused = await t.app.inject({ method: 'GET', url: authorizeUrl(`http://127.0.0.${2 + hosts}:9/last.json`) });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /fetched too many client documents in the last minute/);
  });
});

describe('a client whose metadata document cannot be used gets a clear 400 page, and nothing is stored', () => {
  const cases: [string, string, RegExp][] = [
    ['its client_id differs from the URL', '/mismatch.json', /client_id in the metadata document must equal the URL/],
    ['it is not JSON', '/not-json.json', /is not valid JSON/],
    ['it is not served as JSON', '/html.json', /is not served as application\/json/],
    ['it is larger than 5 kilobytes', '/huge.json', /is larger than 5120 bytes/],
    ['it is slow', '/slow.json', /did not answer within 300 ms/],
    ['it is missing', '/missing.json', /answered HTTP 404/],
    ['it asks for a secret', '/secret.json', /needs a shared secret/],
  ];
  for (const [what, path, reason] of cases) {
    it(`when ${what}`, async () => {
      t = await start();
      const user = await createUser(t);
      const jar = await signIn(t, user);
      const response = await getPage(t, jar, authorizeUrl(`${origin}${path}`));
      assert.equal(response.statusCode, 400, response.body.slice(0, 300));
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers.location, undefined);
      assert.match(response.body.replace(/&#39;/g, "'"), reason);
      assert.equal(await storedClients(), 0);
    });
  }

  it('at the token endpoint: invalid_client', async () => {
    t = await start();
    const response = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI, client_id: `${origin}/mismatch.json` });
    assertError(response, 401, 'invalid_client');
    assert.match(response.json().error_description, /metadata document is not valid/);
    assert.equal(await storedClients(), 0);
  });

  it('in production, plain http, loopback, private and metadata-service addresses are never fetched', async () => {
    t = await start({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://folio.example' });
    const user = await createUser(t);
    const jar = await signIn(t, user);
    const response = await getPage(t, jar, authorizeUrl(`${origin}/assistant.json`));
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /No application is registered with this client_id/);
    for (const host of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]']) {
      const refused = await getPage(t, jar, authorizeUrl(`https://${host}/client.json`));
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, new RegExp(`Folio does not fetch documents from ${host.replace(/[[\]]/g, '').replace(/\./g, '\\.')}`));
    }
    assert.equal(await storedClients(), 0);
  });
});

describe('FOLIO_CLIENT_DOCUMENTS_PRIVATE_NETWORKS', () => {
  it('lets Folio try private addresses, and never a cloud metadata service', async () => {
    t = await start({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://folio.example', FOLIO_CLIENT_DOCUMENTS_PRIVATE_NETWORKS: 'true' });
    const user = await createUser(t);
    const jar = await signIn(t, user);
    const privateHost = await getPage(t, jar, authorizeUrl('https://10.255.255.1/client.json'));
    assert.equal(privateHost.statusCode, 400);
    assert.doesNotMatch(privateHost.body, /does not fetch documents from/);
    assert.match(privateHost.body, /did not answer within 300 ms|could not fetch/);
    const metadataService = await getPage(t, jar, authorizeUrl('https://169.254.169.254/client.json'));
    assert.match(metadataService.body, /Folio does not fetch documents from 169\.254\.169\.254/);
  });
});
