// Sign-up (config.allowSignup): the form, its checks, the new session, and the
// 404 when the server does not accept new accounts.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { verifyPassword } from '../../src/platform/password.ts';
import {
  type TestApp, cookieHeader, cookiesFrom, createTestApp, createUser, form, hiddenField,
} from '../support/app.ts';

type Jar = Record<string, string>;

const valid = { name: 'Grace Saver', email: 'grace@example.test', password: 'a long enough password', confirm: 'a long enough password' };

async function openForm(t: TestApp, jar: Jar, url = '/signup') {
  const page = await t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } });
  Object.assign(jar, cookiesFrom(page));
  return page;
}

async function submit(t: TestApp, fields: Record<string, string>, jar: Jar = {}, options: { remoteAddress?: string; url?: string } = {}) {
  const page = await openForm(t, jar, options.url);
  const response = await t.app.inject({
    method: 'POST', url: '/signup', remoteAddress: options.remoteAddress ?? '127.0.0.1',
    ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: hiddenField(page.body, 'return_to'), ...fields }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
  });
  Object.assign(jar, cookiesFrom(response));
  return response;
}

/** The error shown under a field, through the id its input names in aria-describedby. */
function fieldError(html: string, name: string): string | undefined {
  const input = new RegExp(`<input id="field-${name}"[^>]*>`).exec(html)?.[0] ?? '';
  if (!/aria-invalid="true"/.test(input) || !input.includes(`field-${name}-error`)) return undefined;
  return new RegExp(`<p class="field-error" id="field-${name}-error"><span class="visually-hidden">Error: </span>([^<]*)</p>`).exec(html)?.[1];
}

const countUsers = async (t: TestApp) => (await t.storage.users.hasAnyUser()) ? 1 : 0;

describe('sign-up', () => {
  let t: TestApp;
  afterEach(async () => { await t.close(); });

  describe('when open', () => {
    beforeEach(async () => { t = await createTestApp({ FOLIO_ALLOW_SIGNUP: 'true' }); });

    it('shows a form with labelled name, email, password and confirmation fields and a CSRF token', async () => {
      const page = await openForm(t, {});
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      for (const name of ['name', 'email', 'password', 'confirm']) {
        assert.match(page.body, new RegExp(`<label for="field-${name}">`));
        assert.match(page.body, new RegExp(`<input id="field-${name}" name="${name}"`));
      }
      assert.match(hiddenField(page.body, 'csrf_token'), /^[A-Za-z0-9_-]{43}$/);
    });

    it('is offered on the sign-in page', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/login' });
      assert.match(page.body, /<a href="\/signup">Create an account<\/a>/);
    });

    it('creates the account, signs it in with a new session and answers 303 to /portfolios', async () => {
      const jar: Jar = {};
      const response = await submit(t, valid, jar);
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/portfolios');
      assert.match(jar.folio_session ?? '', /^folio_ss_/);
      const user = await t.storage.users.findUserCredentials('GRACE@example.test');
      assert.equal(user?.name, 'Grace Saver');
      assert.equal(await verifyPassword(valid.password, user!.passwordHash), true);
      const home = await t.app.inject({ method: 'GET', url: '/', headers: { cookie: cookieHeader(jar) } });
      assert.equal(home.headers.location, '/portfolios', 'signed in');
      const events = await t.storage.audit.listEventsForUser(user!.id, 10);
      assert.deepEqual(events.map((event) => event.type), ['user.created']);
    });

    it('the new account signs in with its password', async () => {
      await submit(t, valid);
      const page = await t.app.inject({ method: 'GET', url: '/login' });
      const response = await t.app.inject({
        method: 'POST', url: '/login',
        ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), email: valid.email, password: valid.password }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(cookiesFrom(page)) },
      });
      assert.equal(response.statusCode, 303);
    });

    it('returns to the authorization that sent the person to sign up', async () => {
      const returnTo = '/oauth2/authorize?client_id=abc&response_type=code';
      const login = await t.app.inject({ method: 'GET', url: `/login?${new URLSearchParams({ return_to: returnTo })}` });
      const link = /<a href="([^"]+)">Create an account/.exec(login.body)![1]!.replace(/&amp;/g, '&');
      const response = await submit(t, valid, {}, { url: link });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, returnTo);
    });

    it('never returns to another site', async () => {
      const response = await submit(t, valid, {}, { url: `/signup?${new URLSearchParams({ return_to: '//evil.example' })}` });
      assert.equal(response.headers.location, '/portfolios');
    });

    const bad: [string, Record<string, string>, string, RegExp][] = [
      ['an empty name', { name: '  ' }, 'name', /Enter your name/],
      ['a name over 100 characters', { name: 'n'.repeat(101) }, 'name', /at most 100/],
      ['a missing email', { email: '' }, 'email', /Enter your email/],
      ['an email without a domain', { email: 'grace@' }, 'email', /like name@example.com/],
      ['a short password', { password: 'short', confirm: 'short' }, 'password', /at least 8/],
      ['a confirmation that differs', { confirm: 'something else entirely' }, 'confirm', /do not match/],
    ];
    for (const [what, change, field, expected] of bad) {
      it(`refuses ${what} with the error next to the field, keeping what was typed`, async () => {
        const response = await submit(t, { ...valid, ...change });
        assert.equal(response.statusCode, 400);
        assert.match(fieldError(response.body, field) ?? '', expected);
        assert.match(response.body, /id="error-summary"/);
        assert.match(response.body, new RegExp(`href="#field-${field}"`));
        if (field !== 'name') assert.match(response.body, /value="Grace Saver"/);
        assert.doesNotMatch(response.body, /a long enough password/, 'passwords are never echoed');
        assert.equal(await countUsers(t), 0);
      });
    }

    it('shows every error at once', async () => {
      const response = await submit(t, { name: '', email: 'x', password: '1', confirm: '2' });
      assert.equal(response.statusCode, 400);
      for (const field of ['name', 'email', 'password']) assert.ok(fieldError(response.body, field), field);
    });

    it('escapes what it shows back', async () => {
      const response = await submit(t, { ...valid, name: '<script>alert(1)</script>', email: '"><img src=x>' });
      assert.equal(response.statusCode, 400);
      assert.doesNotMatch(response.body, /<script>alert|<img src=x>/);
      assert.match(response.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    });

    it('says an email is taken without creating anything or signing in', async () => {
      const existing = await createUser(t);
      const jar: Jar = {};
      const response = await submit(t, { ...valid, email: existing.email.toUpperCase() }, jar);
      assert.equal(response.statusCode, 409);
      assert.match(fieldError(response.body, 'email') ?? '', /already exists/);
      assert.equal(jar.folio_session, undefined);
      const still = await t.storage.users.findUserCredentials(existing.email);
      assert.equal(still?.name, existing.name);
    });

    it('counts taken emails against the address, which then cannot sign up or sign in', async () => {
      const existing = await createUser(t);
      for (let i = 0; i < 19; i++) {
        assert.equal((await submit(t, { ...valid, email: existing.email }, {}, { remoteAddress: '203.0.113.9' })).statusCode, 409);
      }
      const locked = await submit(t, { ...valid, email: existing.email }, {}, { remoteAddress: '203.0.113.9' });
      assert.equal(locked.statusCode, 429);
      assert.match(locked.body, /Too many attempts from your network\. Try again in 1 minute\./);
      assert.equal((await submit(t, valid, {}, { remoteAddress: '203.0.113.9' })).statusCode, 429);
      assert.equal((await submit(t, valid, {}, { remoteAddress: '198.51.100.2' })).statusCode, 303);
    });

    it('learns no more taken emails from a parallel burst than one at a time, and keeps the lock short', async () => {
      const existing = await createUser(t);
      const answers = await Promise.all(Array.from({ length: 30 }, () => submit(t, { ...valid, email: existing.email }, {}, { remoteAddress: '203.0.113.9' })));
      const statuses = answers.map((answer) => answer.statusCode);
      assert.equal(statuses.filter((status) => status === 409).length, 19);
      assert.equal(statuses.filter((status) => status === 429).length, 11);
      // Only the twenty looked-up emails counted: a minute later the address may sign up
      // again, where thirty failures would have locked it for an hour.
      t.clock.advance(60_000);
      assert.equal((await submit(t, valid, {}, { remoteAddress: '203.0.113.9' })).statusCode, 303);
    });

    it('does not count sign-ups that succeed or fail validation against the address', async () => {
      for (let i = 0; i < 21; i++) {
        assert.equal((await submit(t, { ...valid, email: `new${i}@example.test` }, {}, { remoteAddress: '203.0.113.10' })).statusCode, 303, `sign-up ${i + 1}`);
        assert.equal((await submit(t, { ...valid, email: 'not an email' }, {}, { remoteAddress: '203.0.113.10' })).statusCode, 400);
      }
    });

    it('refuses a submission without the CSRF token and creates nothing', async () => {
      const jar: Jar = {};
      await openForm(t, jar);
      const response = await t.app.inject({
        method: 'POST', url: '/signup', ...form(valid),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(cookiesFrom(response).folio_session, undefined);
      assert.equal(await countUsers(t), 0);
    });

    it('sends someone already signed in on to their portfolios', async () => {
      const jar: Jar = {};
      await submit(t, valid, jar);
      const page = await t.app.inject({ method: 'GET', url: '/signup', headers: { cookie: cookieHeader(jar) } });
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, '/portfolios');
    });

    it('answers other methods with 405', async () => {
      const response = await t.app.inject({ method: 'PUT', url: '/signup' });
      assert.equal(response.statusCode, 405);
      assert.equal(response.headers.allow, 'GET, POST, HEAD');
    });
  });

  describe('when closed', () => {
    beforeEach(async () => { t = await createTestApp({ FOLIO_ALLOW_SIGNUP: 'false' }); });

    it('answers GET and POST /signup with a 404 page and creates nothing', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/signup' });
      assert.equal(page.statusCode, 404);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const jar: Jar = {};
      const login = await t.app.inject({ method: 'GET', url: '/login' });
      Object.assign(jar, cookiesFrom(login));
      const response = await t.app.inject({
        method: 'POST', url: '/signup', ...form({ ...valid, csrf_token: hiddenField(login.body, 'csrf_token') }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
      });
      assert.equal(response.statusCode, 404);
      assert.equal(await countUsers(t), 0);
    });

    it('is not offered on the sign-in page', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/login' });
      assert.doesNotMatch(page.body, /signup|Create an account/);
    });

    it('is closed by default in production', async () => {
      await t.close();
      t = await createTestApp({ FOLIO_ENV: 'production', FOLIO_BASE_URL: 'https://folio.example' });
      assert.equal((await t.app.inject({ method: 'GET', url: '/signup' })).statusCode, 404);
    });
  });
});
