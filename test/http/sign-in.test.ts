// Sign-in, sign-out and browser sessions (DESIGN §2: CSRF on every form, 303
// after every POST; sessions rotate at sign-in and time out).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import { sessionLifetimes } from '../../src/http/sessions.ts';
import {
  type TestApp, PASSWORD, authorizeUrl, cookieHeader, cookiesFrom, createClient, createTestApp, createUser, form, hiddenField, signIn,
} from '../support/app.ts';

type Jar = Record<string, string>;
const MINUTE = 60_000;

const get = (t: TestApp, url: string, jar: Jar = {}) => t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } });

function post(t: TestApp, url: string, fields: Record<string, string>, jar: Jar) {
  return t.app.inject({ method: 'POST', url, ...form(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
}

/** Loads the form (keeping its CSRF cookie in `jar`) and submits it. */
async function submitSignIn(t: TestApp, jar: Jar, fields: { email: string; password: string; return_to?: string }) {
  const page = await get(t, '/login', jar);
  Object.assign(jar, cookiesFrom(page));
  const response = await post(t, '/login', { csrf_token: hiddenField(page.body, 'csrf_token'), return_to: '/', ...fields }, jar);
  Object.assign(jar, cookiesFrom(response));
  return response;
}

/** GET / answers /portfolios for a live session and /login otherwise. */
async function isSignedIn(t: TestApp, jar: Jar): Promise<boolean> {
  const response = await get(t, '/', jar);
  assert.equal(response.statusCode, 302);
  return response.headers.location === '/portfolios';
}

const errorMessage = (html: string) => /<p class="error"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];

describe('sign-in', () => {
  let t: TestApp;
  let user: User;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
  });
  afterEach(async () => { await t.close(); });

  describe('the sign-in form', () => {
    it('GET /login shows a form with a CSRF token bound to a cookie', async () => {
      const page = await get(t, '/login');
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const token = hiddenField(page.body, 'csrf_token');
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(cookiesFrom(page).folio_csrf, token);
      assert.equal(hiddenField(page.body, 'return_to'), '/');
    });

    it('names the application when sign-in is part of an authorization request', async () => {
      const client = await createClient(t, user, { name: 'Dividend Tracker' });
      const page = await get(t, `/login?${new URLSearchParams({ return_to: authorizeUrl(client) })}`);
      assert.match(page.body, /Dividend Tracker<\/strong> wants to connect/);
      assert.equal(hiddenField(page.body, 'return_to'), authorizeUrl(client));
    });

    it('refuses a submission without the CSRF token (403 page, no session)', async () => {
      const jar: Jar = {};
      const page = await get(t, '/login');
      Object.assign(jar, cookiesFrom(page));
      const response = await post(t, '/login', { email: user.email, password: PASSWORD, return_to: '/' }, jar);
      assert.equal(response.statusCode, 403);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(cookiesFrom(response).folio_session, undefined);
    });

    it('refuses an empty CSRF token matched by an empty cookie (a cookie planted from a sibling domain)', async () => {
      const response = await post(t, '/login', { csrf_token: '', email: user.email, password: PASSWORD }, { folio_csrf: '' });
      assert.equal(response.statusCode, 403);
      assert.equal(cookiesFrom(response).folio_session, undefined);
    });

    it('refuses a CSRF token that does not match the cookie', async () => {
      const response = await post(t, '/login', { csrf_token: 'x'.repeat(43), email: user.email, password: PASSWORD }, { folio_csrf: 'y'.repeat(43) });
      assert.equal(response.statusCode, 403);
      assert.equal(cookiesFrom(response).folio_session, undefined);
    });
  });

  describe('wrong credentials', () => {
    it('answers a wrong password with 401 and no session', async () => {
      const response = await submitSignIn(t, {}, { email: user.email, password: 'not the password' });
      assert.equal(response.statusCode, 401);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(cookiesFrom(response).folio_session, undefined);
      assert.ok(errorMessage(response.body));
    });

    it('gives the same message for an unknown email as for a wrong password', async () => {
      const wrongPassword = await submitSignIn(t, {}, { email: user.email, password: 'not the password' });
      const unknownEmail = await submitSignIn(t, {}, { email: 'nobody@example.test', password: PASSWORD });
      assert.equal(unknownEmail.statusCode, 401);
      assert.equal(errorMessage(unknownEmail.body), errorMessage(wrongPassword.body));
    });

    it('records sign_in.failure for the account', async () => {
      await submitSignIn(t, {}, { email: user.email, password: 'not the password' });
      const events = await t.storage.audit.listEventsForUser(user.id, 10);
      assert.deepEqual(events.map((event) => event.type), ['sign_in.failure']);
    });
  });

  describe('successful sign-in', () => {
    it('redirects (303) to return_to and sets an HttpOnly session cookie', async () => {
      const client = await createClient(t, user);
      const response = await submitSignIn(t, {}, { email: user.email, password: PASSWORD, return_to: authorizeUrl(client) });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, authorizeUrl(client));
      const cookie = response.cookies.filter((c) => c.name === 'folio_session').at(-1)!;
      assert.match(cookie.value, /^folio_ss_/);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
    });

    it('records sign_in.success', async () => {
      await submitSignIn(t, {}, { email: user.email, password: PASSWORD });
      const events = await t.storage.audit.listEventsForUser(user.id, 10);
      assert.deepEqual(events.map((event) => event.type), ['sign_in.success']);
    });

    it('issues a new session id at sign-in and ends the one the browser had (session fixation)', async () => {
      const other = await createUser(t, 'Other Person');
      const jar = await signIn(t, user);
      const before = jar.folio_session!;
      const earlier = { ...jar };
      await signIn(t, other, jar);
      assert.match(jar.folio_session!, /^folio_ss_/);
      assert.notEqual(jar.folio_session, before);
      assert.equal(await isSignedIn(t, jar), true);
      assert.equal(await isSignedIn(t, earlier), false);
    });

    for (const hostile of ['//evil.example/steal', 'https://evil.example/steal', '/\\evil.example', '/\t/evil.example', '/\n/evil.example', '/\r\n/evil.example', '/portfolios/\u20ac', 'javascript:alert(1)']) {
      it(`returns to / instead of ${JSON.stringify(hostile)} (no open redirect)`, async () => {
        const response = await submitSignIn(t, {}, { email: user.email, password: PASSWORD, return_to: hostile });
        assert.equal(response.statusCode, 303);
        assert.equal(response.headers.location, '/');
      });
    }

    it('refuses a return_to with a NUL outright (400), redirecting nowhere', async () => {
      const response = await submitSignIn(t, {}, { email: user.email, password: PASSWORD, return_to: '/\x00/x' });
      assert.equal(response.statusCode, 400);
      assert.equal(response.headers.location, undefined);
    });

    it('does not render a hostile return_to into the form either', async () => {
      const page = await get(t, `/login?${new URLSearchParams({ return_to: '//evil.example' })}`);
      assert.equal(hiddenField(page.body, 'return_to'), '/');
    });
  });

  describe('sign-out', () => {
    it('refuses POST /logout without the CSRF token and keeps the session', async () => {
      const jar = await signIn(t, user);
      const response = await post(t, '/logout', {}, jar);
      assert.ok(response.statusCode >= 400 && response.statusCode < 500);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(await isSignedIn(t, jar), true);
    });

    it('ends the session with the CSRF token and redirects (303) to /login', async () => {
      const client = await createClient(t, user);
      const jar = await signIn(t, user);
      const consent = await get(t, authorizeUrl(client), jar);
      const csrf = hiddenField(consent.body, 'csrf_token');
      const stale = { ...jar };
      const response = await post(t, '/logout', { csrf_token: csrf }, jar);
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/login');
      assert.equal(cookiesFrom(response).folio_session, '');
      assert.equal(await isSignedIn(t, stale), false, 'the old cookie is dead on the server, not only in the browser');
      const events = await t.storage.audit.listEventsForUser(user.id, 10);
      assert.ok(events.some((event) => event.type === 'sign_out'));
    });
  });

  describe('session lifetime', () => {
    it('ends a session idle for two hours', async () => {
      const jar = await signIn(t, user);
      t.clock.advance(sessionLifetimes.idle - MINUTE);
      assert.equal(await isSignedIn(t, jar), true);
      t.clock.advance(sessionLifetimes.idle);
      assert.equal(await isSignedIn(t, jar), false);
    });

    it('keeps an active session alive past two hours', async () => {
      const jar = await signIn(t, user);
      for (let hour = 0; hour < 4; hour++) {
        t.clock.advance(sessionLifetimes.idle - 10 * MINUTE);
        assert.equal(await isSignedIn(t, jar), true, `after ${hour + 1} idle periods of activity`);
      }
    });

    it('ends even an active session twelve hours after sign-in', async () => {
      const jar = await signIn(t, user);
      for (let hour = 1; hour < 12; hour++) {
        t.clock.advance(60 * MINUTE);
        assert.equal(await isSignedIn(t, jar), true, `after ${hour} h`);
      }
      t.clock.advance(60 * MINUTE);
      assert.equal(sessionLifetimes.absolute, 12 * 60 * MINUTE);
      assert.equal(await isSignedIn(t, jar), false);
    });

    it('sends an authorization request with a timed-out session to sign in again', async () => {
      const client = await createClient(t, user);
      const jar = await signIn(t, user);
      t.clock.advance(sessionLifetimes.idle + MINUTE);
      const response = await get(t, authorizeUrl(client), jar);
      assert.equal(response.statusCode, 302);
      assert.match(response.headers.location as string, /^\/login\?return_to=/);
    });
  });
});
