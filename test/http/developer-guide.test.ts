// GET /developers: the public developer guide page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';

describe('developer guide at /developers', () => {
  let t: TestApp;
  before(async () => { t = await createTestApp({ FOLIO_BASE_URL: 'https://folio.example' }); });
  after(async () => t.close());

  it('is a public HTML page under the site-wide security headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/developers' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(String(response.headers['content-security-policy']), /default-src 'none'/);
    assert.doesNotMatch(response.body, /<script/);
  });

  it('tells how to connect an AI assistant: the /mcp address to paste, what the person sees, how to disconnect', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/developers' })).body;
    const section = /<section class="card" id="assistants">([\s\S]*?)<\/section>/.exec(body)?.[1];
    assert.ok(section !== undefined, 'the page has the section');
    assert.match(section, /<h2>Connect an AI assistant<\/h2>/);
    assert.match(section, /<pre><code>https:\/\/folio\.example\/mcp<\/code><\/pre>/);
    for (const fact of ['consent page', 'list_portfolios', 'get_portfolio', 'get_my_user', 'href="/settings/connections"', 'https://folio.example/oauth2/register']) {
      assert.ok(section.includes(fact), fact);
    }
    assert.match(body, /href="#assistants"/);
  });

  it('covers registration, every flow, lifetimes, errors, rate limits and library quirks', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/developers' })).body;
    for (const id of ['register', 'flow-code', 'flow-oob', 'flow-client-credentials', 'flow-refresh', 'lifetimes', 'errors', 'limits', 'libraries']) {
      assert.match(body, new RegExp(`id="${id}"`), id);
    }
    for (const fact of ['1800 s', '10 minutes', '90 days', '10 s', 'Retry-After', 'RateLimit-Remaining', 'invalid_token', 'code_challenge_method=S256', 'urn:ietf:wg:oauth:2.0:oob']) {
      assert.ok(body.includes(fact), fact);
    }
    assert.ok(body.includes('https://folio.example/oauth2/token'), 'examples use the base URL');
    assert.match(body, /href="\/api\/v2\/docs"/);
    assert.match(body, /href="\/api\/v2\/openapi.json"/);
  });

  it('says how to set up each mainstream client library Folio was checked against', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/developers' })).body;
    assert.ok(body.includes('resource=https://folio.example/mcp'), 'resource indicators are explained with the base URL');
    assert.ok(body.includes('invalid_target'));
    for (const library of ['openid-client', 'oauth4webapi', 'simple-oauth2', 'requests-oauthlib', 'Authlib', 'Ruby oauth2', 'Spring Security', 'league/oauth2-client']) {
      assert.ok(body.includes(library), library);
    }
  });

  it('answers other methods with 405', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/developers' });
    assert.equal(response.statusCode, 405);
  });
});
