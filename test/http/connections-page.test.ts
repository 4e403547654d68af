// Connected applications (DESIGN §1): the applications that hold access to my account,
// and revoking one, which ends its grant and every token from it at once.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, bearer, createClient, createTestApp, createUser, obtainTokens, signIn, tokenRequest,
} from '../support/app.ts';
import { type Jar, csrfToken, getPage, postForm } from '../support/pages.ts';

const MINUTE = 60_000;

describe('connected applications page', () => {
  let t: TestApp;
  let user: User;
  let developer: User;
  let client: TestClient;
  let jar: Jar;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t, 'Ada Investor');
    developer = await createUser(t, 'Grace Developer');
    client = await createClient(t, developer, { name: 'Dividend Tracker' });
    jar = await signIn(t, user);
  });
  afterEach(async () => { await t.close(); });

  const callApi = (token: string) => t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(token) });
  const csrf = () => csrfToken(t, jar, '/settings/connections');
  async function grantIdOf(someone: User): Promise<number> {
    const [connection] = await t.storage.grants.listConnectedApplications(someone.id);
    return connection!.grantId;
  }

  it('sends a signed-out visitor to sign-in and back', async () => {
    const response = await getPage(t, {}, '/settings/connections');
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/login?return_to=%2Fsettings%2Fconnections');
  });

  it('says so when no application has access', async () => {
    const page = await getPage(t, jar, '/settings/connections');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /No application has access to your account/);
  });

  it('lists each application with its developer, what it can read, when granted and when last used', async () => {
    await obtainTokens(t, client, user);
    t.clock.advance(5 * MINUTE);
    const other = await createClient(t, developer, { name: '<img src=x onerror=alert(1)>' });
    await obtainTokens(t, other, user);
    await obtainTokens(t, await createClient(t, developer, { name: 'Someone Elses' }), developer);

    const page = await getPage(t, jar, '/settings/connections');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /Dividend Tracker<\/strong><br><span class="muted">Made by Grace Developer<\/span>/);
    assert.match(page.body, /Read your portfolios and their settings/);
    assert.match(page.body, /<time datetime="2026-01-15T09:00:00.000Z">2026-01-15 09:00 UTC<\/time>/);
    assert.match(page.body, /2026-01-15 09:05 UTC/);
    assert.doesNotMatch(page.body, /<img/);
    assert.match(page.body, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.doesNotMatch(page.body, /Someone Elses/);
    assert.equal([...page.body.matchAll(/action="\/settings\/connections\/\d+\/revoke"/g)].length, 2);
  });

  it('revokes: the grant and its tokens die at once, consent is forgotten, the event is recorded', async () => {
    const tokens = await obtainTokens(t, client, user);
    assert.equal((await callApi(tokens.access_token)).statusCode, 200);
    assert.ok(await t.storage.consents.findConsent(user.id, client.application.id));

    const response = await postForm(t, jar, `/settings/connections/${await grantIdOf(user)}/revoke`, { csrf_token: await csrf() });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/settings/connections?notice=revoked');

    const api = await callApi(tokens.access_token);
    assert.equal(api.statusCode, 401);
    assert.match(String(api.headers['www-authenticate']), /error="invalid_token"/);
    const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.clientSecret });
    assert.equal(refresh.statusCode, 400);
    assert.equal(refresh.json().error, 'invalid_grant');
    assert.equal(await t.storage.consents.findConsent(user.id, client.application.id), undefined);

    const [event] = await t.storage.audit.listEventsForUser(user.id, 1, ['grant.revoked']);
    assert.equal(event?.applicationId, client.application.id);
    assert.equal(event?.ip, '127.0.0.1');
    const page = await getPage(t, jar, response.headers.location as string);
    assert.match(page.body, /Access revoked/);
    assert.match(page.body, /No application has access/);
  });

  it('refuses a revoke without a valid CSRF token and leaves the tokens alive', async () => {
    const tokens = await obtainTokens(t, client, user);
    const grantId = await grantIdOf(user);
    for (const fields of [{}, { csrf_token: 'x'.repeat(43) }] as Record<string, string>[]) {
      const response = await postForm(t, jar, `/settings/connections/${grantId}/revoke`, fields);
      assert.equal(response.statusCode, 400);
      assert.match(String(response.headers['content-type']), /^text\/html/);
    }
    assert.equal((await callApi(tokens.access_token)).statusCode, 200);
  });

  it('answers 404 for another person’s grant or no grant, and revokes nothing', async () => {
    const tokens = await obtainTokens(t, client, developer);
    const token = await csrf();
    for (const id of [String(await grantIdOf(developer)), '999999', 'abc', '0']) {
      const response = await postForm(t, jar, `/settings/connections/${id}/revoke`, { csrf_token: token });
      assert.equal(response.statusCode, 404, id);
    }
    assert.equal((await callApi(tokens.access_token)).statusCode, 200);
  });

  it('refuses a signed-out revoke without touching anything', async () => {
    const tokens = await obtainTokens(t, client, user);
    const response = await postForm(t, {}, `/settings/connections/${await grantIdOf(user)}/revoke`, {});
    assert.equal(response.statusCode, 303);
    assert.match(response.headers.location as string, /^\/login\?/);
    assert.equal((await callApi(tokens.access_token)).statusCode, 200);
  });

  it('lets the application ask again after a revoke', async () => {
    await obtainTokens(t, client, user);
    await postForm(t, jar, `/settings/connections/${await grantIdOf(user)}/revoke`, { csrf_token: await csrf() });
    const again = await obtainTokens(t, client, user);
    assert.equal((await callApi(again.access_token)).statusCode, 200);
    assert.equal((await t.storage.grants.listConnectedApplications(user.id)).length, 1);
  });
});
