// Starts the real server process on a free port and drives it over real HTTP,
// the way a consumer application and a browser would. No inject, no shared memory.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HttpBrowser as Browser, hiddenFields as hidden } from '../support/http-browser.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';

const PASSWORD = 'black-box-password';

describe('black box: the real server over real HTTP', () => {
  let server: ServerProcess;
  let baseUrl: string;
  let client: { client_id: string; client_secret: string };

  before(async () => {
    server = await startServerProcess((folio) => {
      folio('user', 'create', '--email', 'owner@example.test', '--password', PASSWORD, '--name', 'Olive Owner');
      folio('portfolio', 'create', '--owner', 'owner@example.test', '--name', 'Black Box Fund', '--currency', 'NZD', '--country', 'NZ');
      client = JSON.parse(folio('app', 'create', '--owner', 'owner@example.test', '--name', 'Black Box App', '--redirect-uri', 'https://client.example/callback', '--json'));
    });
    baseUrl = server.baseUrl;
  });

  after(() => server?.cleanup());

  it('runs the code flow, refreshes, calls the API and shuts down cleanly on SIGTERM', async () => {
    const browser = new Browser(baseUrl);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = `/oauth2/authorize?${new URLSearchParams({
      response_type: 'code', client_id: client.client_id, redirect_uri: 'https://client.example/callback',
      state: 'black-box', code_challenge: challenge, code_challenge_method: 'S256',
    })}`;

    const toLogin = await browser.request(authorize);
    assert.equal(toLogin.status, 302);
    const loginPage = await browser.request(toLogin.headers.get('location')!);
    const signIn = await browser.post('/login', { ...hidden(await loginPage.text()), email: 'owner@example.test', password: PASSWORD });
    assert.equal(signIn.status, 303);
    const consent = await browser.request(signIn.headers.get('location')!);
    assert.equal(consent.status, 200);
    const approved = await browser.post('/oauth2/authorize', { ...hidden(await consent.text()), decision: 'approve' });
    assert.equal(approved.status, 303);
    const callback = new URL(approved.headers.get('location')!);
    assert.equal(callback.searchParams.get('state'), 'black-box');
    assert.equal(callback.searchParams.get('iss'), baseUrl);

    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const exchange = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST', headers: { authorization: basic },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: 'https://client.example/callback', code_verifier: verifier }),
    });
    assert.equal(exchange.status, 200);
    assert.equal(exchange.headers.get('cache-control'), 'no-store');
    const tokens = await exchange.json() as { access_token: string; refresh_token: string; expires_in: number };
    assert.equal(tokens.expires_in, 1800);

    const refreshed = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, client_secret: client.client_secret }),
    });
    assert.equal(refreshed.status, 200);
    const next = await refreshed.json() as { access_token: string; refresh_token: string };
    assert.notEqual(next.refresh_token, tokens.refresh_token);

    const portfolios = await fetch(`${baseUrl}/api/v2/portfolios.json`, { headers: { authorization: `Bearer ${next.access_token}` } });
    assert.equal(portfolios.status, 200);
    const body = await portfolios.json() as { portfolios: { name: string; currency_code: string; links: { self: string } }[] };
    assert.equal(body.portfolios[0]!.name, 'Black Box Fund');
    assert.equal(body.portfolios[0]!.currency_code, 'NZD');
    assert.ok(body.portfolios[0]!.links.self.startsWith(baseUrl));

    assert.equal(await server.stop(), 0);
  });
});
