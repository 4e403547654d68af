// API settings pages (DESIGN §1): register, list, view, edit, rotate the secret of and
// delete applications; the secret is shown once after a 303 and only its hash is kept.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SESSION_COOKIE } from '../../src/http/sessions.ts';
import { hashCredential } from '../../src/platform/secrets.ts';
import type { Application, User } from '../../src/domain/records.ts';
import {
  type TestApp, bearer, cookieHeader, createClient, createTestApp, createUser, obtainTokens, signIn, tokenRequest,
} from '../support/app.ts';
import { type Jar, csrfToken, getPage, postForm, textOf } from '../support/pages.ts';

const XSS_NAME = '<img src=x onerror=alert(1)>';
const VALID = { name: 'Dividend Tracker', redirect_uris: 'https://tracker.example/callback\r\nurn:ietf:wg:oauth:2.0:oob', client_type: 'confidential' };

describe('API settings pages', () => {
  let t: TestApp;
  let user: User;
  let jar: Jar;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    jar = await signIn(t, user);
  });
  afterEach(async () => { await t.close(); });

  const mine = () => t.storage.applications.listApplicationsOwnedBy(user.id);

  async function register(fields: Record<string, string> = VALID) {
    return postForm(t, jar, '/settings/applications/new', { csrf_token: await csrfToken(t, jar), ...fields });
  }

  /** Registers through the form and opens the page it redirects to, where the secret is shown. */
  async function registerAndReveal(fields: Record<string, string> = VALID): Promise<{ application: Application; secret: string; html: string }> {
    const created = await register(fields);
    assert.equal(created.statusCode, 303, created.body);
    const page = await getPage(t, jar, created.headers.location as string);
    assert.equal(page.statusCode, 200);
    const [application] = await mine();
    return { application: application!, secret: textOf(page.body, 'client-secret')!, html: page.body };
  }

  describe('signed out', () => {
    it('sends every page to sign-in and back', async () => {
      for (const url of ['/settings/applications', '/settings/applications/new', '/settings/applications/1', '/settings/applications/1/edit']) {
        const response = await getPage(t, {}, url);
        assert.equal(response.statusCode, 302, url);
        assert.equal(response.headers.location, `/login?${new URLSearchParams({ return_to: url })}`);
      }
    });

    it('refuses a form post without writing anything', async () => {
      const response = await postForm(t, {}, '/settings/applications/new', VALID);
      assert.equal(response.statusCode, 303);
      assert.match(response.headers.location as string, /^\/login\?/);
      assert.deepEqual(await mine(), []);
    });
  });

  describe('signed out in another tab while a secret is made', () => {
    /** Ends this browser's session inside the write, after the page's guard let the POST in. */
    function signOutDuring(method: 'createApplication' | 'replaceApplicationSecret'): void {
      const applications = t.storage.applications as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const write = applications[method]!;
      applications[method] = async (...args) => {
        await t.storage.sessions.deleteSession(hashCredential(jar[SESSION_COOKIE]!));
        return write(...args);
      };
    }

    it('registers nothing, and sends the browser to sign-in as if it had been signed out first', async () => {
      signOutDuring('createApplication');
      const response = await register();
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, `/login?${new URLSearchParams({ return_to: '/' })}`);
      assert.deepEqual(await mine(), []);
    });

    it('rotates nothing: the old secret keeps working and no rotation is recorded', async () => {
      const client = await createClient(t, user);
      const csrf = await csrfToken(t, jar);
      signOutDuring('replaceApplicationSecret');
      const response = await postForm(t, jar, `/settings/applications/${client.application.id}/rotate-secret`, { csrf_token: csrf });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, `/login?${new URLSearchParams({ return_to: '/' })}`);
      assert.deepEqual(await t.storage.applications.findApplicationById(client.application.id), client.application);
      const stillWorks = await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      assert.equal(stillWorks.statusCode, 200);
      assert.deepEqual(await t.storage.audit.listEventsForUser(user.id, 10, ['application.secret_rotated']), []);
    });
  });

  describe('the list', () => {
    it('shows my applications with client_id, type, PKCE and redirect URIs, and no one else’s', async () => {
      const confidential = await createClient(t, user, { name: 'Server App', redirectUris: ['https://a.example/cb', 'urn:ietf:wg:oauth:2.0:oob'] });
      const phone = await createClient(t, user, { name: 'Phone App', confidential: false, redirectUris: ['com.example.phone:/cb'] });
      await createClient(t, await createUser(t, 'Someone Else'), { name: 'Not Mine' });

      const page = await getPage(t, jar, '/settings/applications');
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['cache-control'], 'no-store');
      for (const text of ['Server App', confidential.clientId, 'https://a.example/cb', 'urn:ietf:wg:oauth:2.0:oob', 'Phone App', phone.clientId, 'com.example.phone:/cb']) {
        assert.ok(page.body.includes(text), text);
      }
      assert.match(page.body, /Server App<\/a><\/td>\s*<td><code>[^<]+<\/code><\/td>\s*<td>Confidential<\/td>\s*<td class="optional">Optional<\/td>/);
      assert.match(page.body, /Phone App<\/a><\/td>\s*<td><code>[^<]+<\/code><\/td>\s*<td>Public<\/td>\s*<td class="optional">Required<\/td>/);
      assert.doesNotMatch(page.body, /Not Mine/);
      assert.match(page.body, /href="\/\.well-known\/oauth-authorization-server"/);
    });

    it('says so when there are none, and links to the registration form', async () => {
      const page = await getPage(t, jar, '/settings/applications');
      assert.match(page.body, /not registered any applications/);
      assert.match(page.body, /href="\/settings\/applications\/new"/);
    });
  });

  describe('registering', () => {
    it('shows an empty form: confidential chosen, PKCE left to the developer', async () => {
      const page = await getPage(t, jar, '/settings/applications/new');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<form method="post" action="\/settings\/applications\/new"/);
      assert.match(page.body, /value="confidential" checked/);
      assert.doesNotMatch(page.body, /name="pkce_required" value="on" checked/);
      assert.match(page.body, /<textarea id="redirect_uris" name="redirect_uris"/);
    });

    it('creates the application, redirects with 303 and shows client_id and secret once; only the hash is stored', async () => {
      const created = await register();
      assert.equal(created.statusCode, 303);
      const [application] = await mine();
      assert.ok(application);
      assert.equal(created.headers.location, `/settings/applications/${application.id}`);
      assert.doesNotMatch(created.headers.location as string, /folio_cs_|secret/);

      const first = await getPage(t, jar, created.headers.location as string);
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['cache-control'], 'no-store');
      const secret = textOf(first.body, 'client-secret')!;
      assert.match(secret, /^folio_cs_/);
      assert.equal(textOf(first.body, 'client-id'), application.clientId);
      assert.match(first.body, /shown only this once/);
      assert.equal(application.secretHash, hashCredential(secret));
      assert.deepEqual(application.redirectUris, ['https://tracker.example/callback', 'urn:ietf:wg:oauth:2.0:oob']);
      assert.equal(application.confidential, true);
      assert.equal(application.pkceRequired, false);

      const second = await getPage(t, jar, created.headers.location as string);
      assert.equal(second.statusCode, 200);
      assert.equal(textOf(second.body, 'client-secret'), undefined);
      assert.doesNotMatch(second.body, /folio_cs_/);

      const works = await tokenRequest(t, { grant_type: 'client_credentials', client_id: application.clientId, client_secret: secret });
      assert.equal(works.statusCode, 200);
      const [event] = await t.storage.audit.listEventsForUser(user.id, 1, ['application.created']);
      assert.equal(event?.applicationId, application.id);
      assert.doesNotMatch(JSON.stringify(event), /folio_cs_/);
    });

    it('keeps the waiting secret sealed, for this session only', async () => {
      const created = await register();
      const [application] = await mine();
      const otherSession = await signIn(t, user);
      const elsewhere = await getPage(t, otherSession, created.headers.location as string);
      assert.equal(elsewhere.statusCode, 200);
      assert.equal(textOf(elsewhere.body, 'client-secret'), undefined);

      const sealed = await t.storage.secretReveals.takeSecretReveal(hashCredential(jar.folio_session!), application!.id, t.clock.now());
      assert.ok(sealed);
      assert.doesNotMatch(sealed, /folio_cs_/);
    });

    it('keeps the secret for the GET when a HEAD of the page comes first', async () => {
      const created = await register();
      const head = await t.app.inject({ method: 'HEAD', url: created.headers.location as string, headers: { cookie: cookieHeader(jar) } });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      const page = await getPage(t, jar, created.headers.location as string);
      assert.match(textOf(page.body, 'client-secret') ?? '', /^folio_cs_/);
    });

    it('forgets a secret nobody came to see within ten minutes', async () => {
      const created = await register();
      t.clock.advance(11 * 60_000);
      const page = await getPage(t, jar, created.headers.location as string);
      assert.equal(textOf(page.body, 'client-secret'), undefined);
    });

    it('requires PKCE of public applications whatever the checkbox says, and of confidential ones when ticked', async () => {
      await register({ ...VALID, name: 'Phone', client_type: 'public' });
      await register({ ...VALID, name: 'Careful Server', pkce_required: 'on' });
      const [phone, server] = await mine();
      assert.equal(phone?.confidential, false);
      assert.equal(phone?.pkceRequired, true);
      assert.equal(server?.confidential, true);
      assert.equal(server?.pkceRequired, true);
    });

    it('trims the name, ignores blank lines and repeats among redirect URIs', async () => {
      await register({ ...VALID, name: '  Spaced  ', redirect_uris: '\nhttps://a.example/cb\n\n  https://a.example/cb  \nhttp://127.0.0.1:8080/cb\n' });
      const [application] = await mine();
      assert.equal(application?.name, 'Spaced');
      assert.deepEqual(application?.redirectUris, ['https://a.example/cb', 'http://127.0.0.1:8080/cb']);
    });

    it('escapes the application name on every page', async () => {
      const { application, html } = await registerAndReveal({ ...VALID, name: XSS_NAME });
      assert.equal(application.name, XSS_NAME);
      const pages = [html, ...await Promise.all(['', '/edit', '/rotate-secret', '/delete'].map(async (suffix) => (await getPage(t, jar, `/settings/applications${suffix === '' ? '' : `/${application.id}${suffix}`}`)).body))];
      for (const body of pages) {
        assert.doesNotMatch(body, /<img/);
        assert.match(body, /&lt;img src=x onerror=alert\(1\)&gt;/);
      }
    });

    for (const [label, fields, field, message] of [
      ['an empty name', { name: '   ' }, 'name', /1 to 100 characters/],
      ['a name of 101 characters', { name: 'x'.repeat(101) }, 'name', /1 to 100 characters/],
      ['a name that a right-to-left override reorders', { name: 'Tax \u202Eppa lanigirO' }, 'name', /control or text-direction characters/],
      ['a name with a control character', { name: 'Tax\u0007Helper' }, 'name', /control or text-direction characters/],
      ['no redirect URI', { redirect_uris: '\n \n' }, 'redirect_uris', /At least one redirect URI/],
      ['plain http to a public host', { redirect_uris: 'http://evil.example/cb' }, 'redirect_uris', /must use https unless its host is loopback/],
      ['a fragment', { redirect_uris: 'https://a.example/cb#frag' }, 'redirect_uris', /must not contain a fragment/],
      ['a relative URI', { redirect_uris: '/callback' }, 'redirect_uris', /must be an absolute URI/],
      ['a javascript: URI', { redirect_uris: 'javascript:alert(1)' }, 'redirect_uris', /must be https/],
      ['no client type', { client_type: '' }, 'client_type', /Choose confidential or public/],
    ] as const) {
      it(`refuses ${label} with an error next to the field, keeping what was typed`, async () => {
        const fields_ = { ...VALID, ...fields };
        const response = await register(fields_);
        assert.equal(response.statusCode, 422);
        assert.match(String(response.headers['content-type']), /^text\/html/);
        assert.match(textOf(response.body, `${field}-error`) ?? '', message);
        const control = new RegExp(`<(input|textarea)[^>]*(id|name)="${field}"[^>]*aria-describedby="[^"]*${field}-error"[^>]*aria-invalid="true"`);
        assert.match(response.body, control);
        if (field !== 'name') assert.match(response.body, new RegExp(`id="name"[^>]*value="${VALID.name}"`));
        if (field !== 'redirect_uris') assert.match(response.body, /https:\/\/tracker\.example\/callback/);
        assert.match(response.body, /role="alert"/);
        assert.deepEqual(await mine(), []);
      });
    }

    it('keeps a hostile redirect URI as typed, escaped', async () => {
      const response = await register({ ...VALID, redirect_uris: 'https://a.example/"><script>x</script>' });
      assert.equal(response.statusCode, 422);
      assert.doesNotMatch(response.body, /<script>/);
      assert.match(response.body, /&lt;script&gt;/);
    });

    it('refuses a form without a valid CSRF token and writes nothing', async () => {
      const missing = await postForm(t, jar, '/settings/applications/new', VALID);
      assert.equal(missing.statusCode, 400);
      assert.match(String(missing.headers['content-type']), /^text\/html/);
      const wrong = await postForm(t, jar, '/settings/applications/new', { ...VALID, csrf_token: 'x'.repeat(43) });
      assert.equal(wrong.statusCode, 400);
      assert.deepEqual(await mine(), []);
    });
  });

  describe('one application', () => {
    let client: Awaited<ReturnType<typeof createClient>>;
    let stranger: Awaited<ReturnType<typeof createClient>>;
    beforeEach(async () => {
      client = await createClient(t, user, { name: 'Tax Helper', redirectUris: ['https://tax.example/cb'] });
      stranger = await createClient(t, await createUser(t, 'Other Developer'), { name: 'Their App' });
    });

    it('shows its details without any secret', async () => {
      const page = await getPage(t, jar, `/settings/applications/${client.application.id}`);
      assert.equal(page.statusCode, 200);
      assert.equal(textOf(page.body, 'client-id'), client.clientId);
      assert.match(page.body, /https:\/\/tax\.example\/cb/);
      assert.equal(textOf(page.body, 'client-secret'), undefined);
      assert.doesNotMatch(page.body, new RegExp(client.clientSecret));
    });

    it('answers 404 for another user’s application, on every page and form, and changes nothing', async () => {
      const token = await csrfToken(t, jar);
      const base = `/settings/applications/${stranger.application.id}`;
      for (const suffix of ['', '/edit', '/rotate-secret', '/delete']) {
        const response = await getPage(t, jar, base + suffix);
        assert.equal(response.statusCode, 404, suffix);
        assert.match(String(response.headers['content-type']), /^text\/html/);
        assert.doesNotMatch(response.body, /Their App/);
      }
      for (const suffix of ['/edit', '/rotate-secret', '/delete']) {
        const response = await postForm(t, jar, base + suffix, { csrf_token: token, ...VALID });
        assert.equal(response.statusCode, 404, suffix);
      }
      assert.deepEqual(await t.storage.applications.findApplicationById(stranger.application.id), stranger.application);
    });

    it('answers 404 for ids that are not applications', async () => {
      for (const id of ['0', '999999', 'abc', '1e3', '-1', '99999999999999999999']) {
        assert.equal((await getPage(t, jar, `/settings/applications/${id}`)).statusCode, 404, id);
      }
    });

    it('edits name, redirect URIs, type and PKCE', async () => {
      const form = await getPage(t, jar, `/settings/applications/${client.application.id}/edit`);
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /id="name"[^>]*value="Tax Helper"/);
      assert.match(form.body, />https:\/\/tax\.example\/cb<\/textarea>/);

      const saved = await postForm(t, jar, `/settings/applications/${client.application.id}/edit`, {
        csrf_token: await csrfToken(t, jar), name: 'Tax Helper 2', redirect_uris: 'https://tax.example/v2\nurn:ietf:wg:oauth:2.0:oob', client_type: 'public',
      });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, `/settings/applications/${client.application.id}?notice=updated`);
      const updated = await t.storage.applications.findApplicationById(client.application.id);
      assert.equal(updated?.name, 'Tax Helper 2');
      assert.deepEqual(updated?.redirectUris, ['https://tax.example/v2', 'urn:ietf:wg:oauth:2.0:oob']);
      assert.equal(updated?.confidential, false);
      assert.equal(updated?.pkceRequired, true);
      assert.equal(updated?.secretHash, client.application.secretHash);
      const page = await getPage(t, jar, saved.headers.location as string);
      assert.match(page.body, /Your changes are saved/);
    });

    it('refuses a bad edit next to the field and keeps the application as it was', async () => {
      const response = await postForm(t, jar, `/settings/applications/${client.application.id}/edit`, {
        csrf_token: await csrfToken(t, jar), name: 'Renamed', redirect_uris: 'http://evil.example/cb', client_type: 'confidential',
      });
      assert.equal(response.statusCode, 422);
      assert.match(textOf(response.body, 'redirect_uris-error') ?? '', /https/);
      assert.match(response.body, /id="name"[^>]*value="Renamed"/);
      assert.deepEqual(await t.storage.applications.findApplicationById(client.application.id), client.application);
    });

    it('refuses an edit without a CSRF token', async () => {
      const response = await postForm(t, jar, `/settings/applications/${client.application.id}/edit`, { ...VALID });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(await t.storage.applications.findApplicationById(client.application.id), client.application);
    });

    it('rotates the secret: the old one dies at the token endpoint at once, the new one is shown once and works', async () => {
      const confirm = await getPage(t, jar, `/settings/applications/${client.application.id}/rotate-secret`);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /stops working at once/);

      const rotated = await postForm(t, jar, `/settings/applications/${client.application.id}/rotate-secret`, { csrf_token: await csrfToken(t, jar) });
      assert.equal(rotated.statusCode, 303);
      assert.equal(rotated.headers.location, `/settings/applications/${client.application.id}`);
      const page = await getPage(t, jar, rotated.headers.location as string);
      const secret = textOf(page.body, 'client-secret')!;
      assert.match(secret, /^folio_cs_/);
      assert.notEqual(secret, client.clientSecret);
      assert.equal((await t.storage.applications.findApplicationById(client.application.id))?.secretHash, hashCredential(secret));
      assert.equal(textOf((await getPage(t, jar, rotated.headers.location as string)).body, 'client-secret'), undefined);

      const old = await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      assert.equal(old.statusCode, 401);
      assert.equal(old.json().error, 'invalid_client');
      const fresh = await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret });
      assert.equal(fresh.statusCode, 200);
      assert.equal((await t.storage.audit.listEventsForUser(user.id, 1, ['application.secret_rotated'])).length, 1);
    });

    it('does not rotate without a CSRF token', async () => {
      const response = await postForm(t, jar, `/settings/applications/${client.application.id}/rotate-secret`, {});
      assert.equal(response.statusCode, 400);
      const stillWorks = await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      assert.equal(stillWorks.statusCode, 200);
    });

    it('deletes after confirmation, and every token it holds dies at once', async () => {
      const customer = await createUser(t, 'Customer');
      const tokens = await obtainTokens(t, client, customer);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v2/my_user.json', headers: bearer(tokens.access_token) })).statusCode, 200);

      const confirm = await getPage(t, jar, `/settings/applications/${client.application.id}/delete`);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /cannot be undone/);
      const deleted = await postForm(t, jar, `/settings/applications/${client.application.id}/delete`, { csrf_token: await csrfToken(t, jar) });
      assert.equal(deleted.statusCode, 303);
      assert.equal(deleted.headers.location, '/settings/applications?notice=deleted');
      assert.equal(await t.storage.applications.findApplicationById(client.application.id), undefined);

      const api = await t.app.inject({ method: 'GET', url: '/api/v2/my_user.json', headers: bearer(tokens.access_token) });
      assert.equal(api.statusCode, 401);
      assert.match(String(api.headers['www-authenticate']), /invalid_token/);
      const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.clientSecret });
      assert.equal(refresh.statusCode, 401);
      const list = await getPage(t, jar, deleted.headers.location as string);
      assert.match(list.body, /The application is deleted/);
      assert.equal((await t.storage.audit.listEventsForUser(user.id, 1, ['application.deleted']))[0]?.detail.name, 'Tax Helper');
    });

    it('does not delete without a CSRF token', async () => {
      const response = await postForm(t, jar, `/settings/applications/${client.application.id}/delete`, { csrf_token: '' });
      assert.equal(response.statusCode, 400);
      assert.ok(await t.storage.applications.findApplicationById(client.application.id));
    });
  });

  it('answers 405 with Allow for other methods', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/settings/applications/1', headers: { cookie: `folio_session=${jar.folio_session}` } });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET, HEAD');
  });
});
