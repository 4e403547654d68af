// Activity (DESIGN §1): my recent account events, newest first, named for people,
// with the application and address when known, and never a secret.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, type TestClient, PASSWORD, cookiesFrom, createClient, createTestApp, createUser, form, hiddenField,
  obtainTokens, signIn, tokenRequest,
} from '../support/app.ts';
import { type Jar, csrfToken, getPage, postForm, textOf } from '../support/pages.ts';

const MINUTE = 60_000;

/** The activity table's rows as [time, what, application, address] text. */
function rows(html: string): string[][] {
  const body = /<tbody>([\s\S]*)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '').trim()));
}

describe('activity page', () => {
  let t: TestApp;
  let user: User;
  let jar: Jar;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    jar = await signIn(t, user);
  });
  afterEach(async () => { await t.close(); });

  it('sends a signed-out visitor to sign-in and back', async () => {
    const response = await getPage(t, {}, '/activity');
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/login?return_to=%2Factivity');
  });

  it('lists sign-ins, failures, consents, revocations and application changes, newest first, with names and addresses', async () => {
    // A failed attempt at this account from another address.
    const login = await t.app.inject({ method: 'GET', url: '/login' });
    t.clock.advance(MINUTE);
    await t.app.inject({
      method: 'POST', url: '/login', remoteAddress: '203.0.113.9',
      ...form({ csrf_token: hiddenField(login.body, 'csrf_token'), return_to: '/', email: user.email, password: `${PASSWORD}!` }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `folio_csrf=${cookiesFrom(login).folio_csrf}` },
    });

    t.clock.advance(MINUTE);
    const tracker: TestClient = await createClient(t, await createUser(t, 'Developer'), { name: 'Dividend Tracker' });
    const tokens = await obtainTokens(t, tracker, user);
    t.clock.advance(MINUTE);
    await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tracker.clientId, client_secret: tracker.clientSecret });
    t.clock.advance(MINUTE);
    await t.app.inject({ method: 'POST', url: '/oauth2/revoke', ...form({ token: tokens.access_token, client_id: tracker.clientId, client_secret: tracker.clientSecret }) });
    t.clock.advance(MINUTE);
    const [grant] = await t.storage.grants.listConnectedApplications(user.id);
    await postForm(t, jar, `/settings/connections/${grant!.grantId}/revoke`, { csrf_token: await csrfToken(t, jar) });

    t.clock.advance(MINUTE);
    const created = await postForm(t, jar, '/settings/applications/new', {
      csrf_token: await csrfToken(t, jar), name: 'My Robot', redirect_uris: 'https://robot.example/cb', client_type: 'confidential',
    });
    const secretPage = await getPage(t, jar, created.headers.location as string);
    const secret = textOf(secretPage.body, 'client-secret')!;
    t.clock.advance(MINUTE);
    const base = created.headers.location as string;
    await postForm(t, jar, `${base}/rotate-secret`, { csrf_token: await csrfToken(t, jar) });
    t.clock.advance(MINUTE);
    await postForm(t, jar, `${base}/delete`, { csrf_token: await csrfToken(t, jar) });

    const page = await getPage(t, jar, '/activity');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.deepEqual(rows(page.body).map(([, what, application]) => [what, application]), [
      ['Deleted an application', 'My Robot'],
      ['Made a new application secret', 'My Robot'],
      ['Registered an application', 'My Robot'],
      ['Revoked an application’s access', 'Dividend Tracker'],
      ['An application gave up a token', 'Dividend Tracker'],
      ['Allowed an application access', 'Dividend Tracker'],
      ['Signed in', ''],
      ['Failed sign-in attempt', ''],
      ['Signed in', ''],
    ]);
    const all = rows(page.body);
    assert.equal(all[0]![0], '2026-01-15 09:08 UTC');
    assert.equal(all[0]![3], '127.0.0.1');
    assert.deepEqual(all[7]!.slice(0, 2), ['2026-01-15 09:01 UTC', 'Failed sign-in attempt']);
    assert.equal(all[7]![3], '203.0.113.9');
    assert.doesNotMatch(page.body, /folio_cs_|folio_at_|folio_rt_/);
    assert.ok(!page.body.includes(secret));
    assert.doesNotMatch(page.body, /token\.refreshed|Token refreshed/);
  });

  it('escapes application names and names an application known only by id', async () => {
    const hostile = await createClient(t, await createUser(t, 'Developer'), { name: '<img src=x onerror=alert(1)>' });
    await t.storage.audit.recordEvent({ type: 'consent.granted', userId: user.id, applicationId: hostile.application.id, ip: '198.51.100.4', detail: { scope: 'read' }, createdAt: t.clock.now() + 1 });
    await t.storage.audit.recordEvent({ type: 'token.revoked', userId: user.id, applicationId: 424242, ip: null, detail: {}, createdAt: t.clock.now() + 2 });
    const page = await getPage(t, jar, '/activity');
    assert.doesNotMatch(page.body, /<img/);
    const [gone, consent] = rows(page.body);
    assert.deepEqual(gone!.slice(1), ['An application gave up a token', 'a deleted application', 'command line']);
    assert.deepEqual(consent!.slice(1), ['Allowed an application access', '&lt;img src=x onerror=alert(1)&gt;', '198.51.100.4']);
  });

  it('shows the latest fifty events and nobody else’s', async () => {
    const other = await createUser(t, 'Other');
    for (let i = 0; i < 60; i++) {
      await t.storage.audit.recordEvent({ type: 'sign_in.failure', userId: user.id, applicationId: null, ip: `10.0.0.${i}`, detail: {}, createdAt: t.clock.now() + i });
    }
    await t.storage.audit.recordEvent({ type: 'sign_in.success', userId: other.id, applicationId: null, ip: '192.0.2.77', detail: {}, createdAt: t.clock.now() + 100 });
    const listed = rows((await getPage(t, jar, '/activity')).body);
    assert.equal(listed.length, 50);
    assert.equal(listed[0]![3], '10.0.0.59');
    assert.equal(listed[49]![3], '10.0.0.10');
    assert.ok(listed.every((row) => row[3] !== '192.0.2.77'));
  });
});
