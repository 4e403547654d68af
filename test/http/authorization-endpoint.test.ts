// The authorization endpoint as a browser meets it (RFC 6749 §4.1.1–4.1.2,
// RFC 9207, RFC 8252, DESIGN §2 "Authorization endpoint").
import assert from 'node:assert/strict';
import { StorageUnavailableError } from '../../src/storage/errors.ts';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type TestApp, type TestClient, PASSWORD, approve, authorizeUrl, bearer, continuationOf, cookieHeader, cookiesFrom, createClient,
  createTestApp, createUser, form, hiddenField, pkcePair, signIn, tokenRequest,
} from '../support/app.ts';

const ISSUER = 'http://folio.test';
const TRICKY_STATE = 'a b&c=d/é';

type Jar = Record<string, string>;

const get = (t: TestApp, url: string, jar: Jar = {}) => t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } });

/** The hidden fields of the consent form, as a browser would post them back. */
function consentFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = hiddenField(match[0], match[1]!);
  }
  return fields;
}

function postConsent(t: TestApp, jar: Jar, fields: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: '/oauth2/authorize', ...form(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
}

/** Loads the consent page and answers it with `decision`. */
async function answer(t: TestApp, jar: Jar, url: string, decision: string) {
  const page = await get(t, url, jar);
  assert.equal(page.statusCode, 200, page.body.slice(0, 300));
  return postConsent(t, jar, { ...consentFields(page.body), decision });
}

/** Signs in through the form with a return_to, as the login redirect would; returns the 303 response. */
async function signInReturningTo(t: TestApp, email: string, returnTo: string, jar: Jar) {
  const page = await get(t, `/login?${new URLSearchParams({ return_to: returnTo })}`, jar);
  Object.assign(jar, cookiesFrom(page));
  const response = await t.app.inject({
    method: 'POST', url: '/login',
    ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: hiddenField(page.body, 'return_to'), email, password: PASSWORD }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
  });
  Object.assign(jar, cookiesFrom(response));
  return response;
}

/** The application's developer deletes it (in another tab) just before the store's `method` writes. */
function deleteApplicationDuring<S extends object>(t: TestApp, client: TestClient, store: S, method: keyof S & string): void {
  const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const write = methods[method]!.bind(store);
  methods[method] = async (...args) => {
    const { id } = client.application;
    const ownerId = client.application.ownerId!;
    await t.storage.applications.deleteApplication(id, ownerId, { type: 'application.deleted', userId: ownerId, applicationId: id, ip: null, detail: {}, createdAt: Date.now() });
    return write(...args);
  };
}

function assertErrorPage(response: { statusCode: number; headers: Record<string, unknown>; body: string }, description: RegExp) {
  assert.equal(response.statusCode, 400);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.equal(response.headers.location, undefined);
  assert.match(response.body, description);
}

function assertRedirectedError(location: string, redirectUri: string, error: string, state: string | null) {
  const url = new URL(location);
  assert.equal(`${url.origin}${url.pathname}`, redirectUri);
  assert.equal(url.searchParams.get('error'), error);
  assert.ok((url.searchParams.get('error_description') ?? '').length > 0, 'error_description is present');
  assert.equal(url.searchParams.get('state'), state);
  assert.equal(url.searchParams.get('iss'), ISSUER);
  assert.equal(url.searchParams.get('code'), null);
}

async function exchange(t: TestApp, client: TestClient, code: string, redirectUri = client.application.redirectUris[0]!) {
  return tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.clientId, client_secret: client.clientSecret });
}

async function userIdOfToken(t: TestApp, accessToken: string): Promise<number> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v2/my_user', headers: bearer(accessToken) });
  assert.equal(response.statusCode, 200);
  return response.json().user.id;
}

describe('authorization endpoint', () => {
  let t: TestApp;
  beforeEach(async () => { t = await createTestApp(); });
  afterEach(async () => { await t.close(); });

  describe('RFC 6749 §4.1.1 authorization request', () => {
    it('sends a visitor who is not signed in to /login, returning to the same request', async () => {
      const client = await createClient(t, await createUser(t));
      const url = authorizeUrl(client, { state: TRICKY_STATE });
      const response = await get(t, url);
      assert.equal(response.statusCode, 302);
      const location = new URL(response.headers.location as string, ISSUER);
      assert.equal(location.pathname, '/login');
      const returnTo = new URL(location.searchParams.get('return_to')!, ISSUER);
      assert.equal(returnTo.pathname, '/oauth2/authorize');
      assert.equal(returnTo.searchParams.get('client_id'), client.clientId);
      assert.equal(returnTo.searchParams.get('redirect_uri'), 'https://client.example/callback');
      assert.equal(returnTo.searchParams.get('state'), TRICKY_STATE);
    });

    it('shows a consent page naming the application, its developer, what it may read and where the browser returns', async () => {
      const developer = await createUser(t, 'Dora Developer');
      const client = await createClient(t, developer, { name: 'Tax Helper' });
      const jar = await signIn(t, await createUser(t, 'Ada Investor'));
      const response = await get(t, authorizeUrl(client), jar);
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.match(response.body, /Tax Helper/);
      assert.match(response.body, /Made by Dora Developer/);
      assert.match(response.body, /Read your portfolios/);
      assert.match(response.body, /client\.example/);
      assert.match(response.body, /name="csrf_token" value="[A-Za-z0-9_-]{43}"/);
    });

    it('escapes an application name chosen to inject markup', async () => {
      const client = await createClient(t, await createUser(t), { name: '<script>alert(1)</script>' });
      const jar = await signIn(t, await createUser(t));
      const response = await get(t, authorizeUrl(client), jar);
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes('<script>alert(1)</script>'));
      assert.match(response.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    });
  });

  describe('RFC 6749 §4.1.2.1 unexpected failures after the client is verified', () => {
    const failures = [[new Error('boom'), 'server_error', 500], [new StorageUnavailableError(new Error('down')), 'temporarily_unavailable', 503]] as const;
    for (const [failure, code, status] of failures) {
      it(`are offered to the client as ${code}, with state, by a link when approval cannot be checked`, async () => {
        const client = await createClient(t, await createUser(t));
        const jar = await signIn(t, await createUser(t));
        t.storage.consents.findConsent = async () => { throw failure; };
        const link = continuationOf(await get(t, authorizeUrl(client, { state: TRICKY_STATE }), jar), status);
        assertRedirectedError(link.href, 'https://client.example/callback', code, TRICKY_STATE);
      });

      it(`are sent back to the client as ${code}, with state, once the user has approved it`, async () => {
        const client = await createClient(t, await createUser(t));
        const jar = await signIn(t, await createUser(t));
        await approve(t, jar, authorizeUrl(client));
        t.storage.codes.saveAuthorizationCode = async () => { throw failure; };
        const response = await get(t, authorizeUrl(client, { state: TRICKY_STATE }), jar);
        assert.equal(response.statusCode, 302);
        assertRedirectedError(response.headers.location as string, 'https://client.example/callback', code, TRICKY_STATE);
      });
    }
  });

  describe('a long state and sign-in', () => {
    it('carries a state of 2,048 characters through sign-in and back', async () => {
      const client = await createClient(t, await createUser(t));
      const user = await createUser(t);
      const state = 'x'.repeat(2048);
      const toLogin = await get(t, authorizeUrl(client, { state }));
      assert.equal(toLogin.statusCode, 302);
      const returnTo = new URL(toLogin.headers.location as string, 'http://folio.test').searchParams.get('return_to')!;
      const signedIn = await signInReturningTo(t, user.email, returnTo, {});
      assert.equal(signedIn.headers.location, returnTo);
    });

    it('refuses, to the client, a request whose state sign-in could not carry back once percent-encoded', async () => {
      const client = await createClient(t, await createUser(t));
      const state = '/+='.repeat(500);
      const link = continuationOf(await get(t, authorizeUrl(client, { state })));
      assertRedirectedError(link.href, 'https://client.example/callback', 'invalid_request', state);
    });
  });

  describe('RFC 6749 §4.1.2 authorization response', () => {
    it('approving sends the browser (303) to redirect_uri with a code, state unchanged and iss (RFC 9207)', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const response = await answer(t, jar, authorizeUrl(client, { state: TRICKY_STATE }), 'approve');
      assert.equal(response.statusCode, 303);
      const location = new URL(response.headers.location as string);
      assert.equal(`${location.origin}${location.pathname}`, 'https://client.example/callback');
      assert.match(location.searchParams.get('code')!, /^folio_ac_/);
      assert.equal(location.searchParams.get('state'), TRICKY_STATE);
      assert.equal(location.searchParams.get('iss'), ISSUER);
      assert.equal((await exchange(t, client, location.searchParams.get('code')!)).statusCode, 200);
    });

    it('denying sends the browser (303) back with error=access_denied, state and iss, and no code', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const response = await answer(t, jar, authorizeUrl(client, { state: TRICKY_STATE }), 'deny');
      assert.equal(response.statusCode, 303);
      assertRedirectedError(response.headers.location as string, 'https://client.example/callback', 'access_denied', TRICKY_STATE);
    });

    it('leaves out state when the request had none', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const params = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: 'https://client.example/callback' });
      const location = await approve(t, jar, `/oauth2/authorize?${params}`);
      assert.ok(location.searchParams.has('code'));
      assert.equal(location.searchParams.has('state'), false);
    });
  });

  describe('RFC 6749 §4.1.2.1 errors before the client and redirect URI are verified: a page, never a redirect', () => {
    it('shows a 400 page for an unknown client_id', async () => {
      const client = await createClient(t, await createUser(t));
      const response = await get(t, authorizeUrl(client, { client_id: 'no-such-client' }));
      assertErrorPage(response, /No application is registered/);
    });

    it('shows a 400 page for a missing client_id', async () => {
      const response = await get(t, `/oauth2/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: 'https://client.example/callback' })}`);
      assertErrorPage(response, /client_id is required/);
    });

    it('shows a 400 page for a redirect_uri that is not registered, even with other errors present', async () => {
      const client = await createClient(t, await createUser(t));
      const response = await get(t, authorizeUrl(client, { redirect_uri: 'https://attacker.example/callback', response_type: 'token' }));
      assertErrorPage(response, /redirect_uri is not registered/);
    });

    it('shows a 400 page for a missing redirect_uri', async () => {
      const client = await createClient(t, await createUser(t));
      const response = await get(t, `/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.clientId, state: 's' })}`);
      assertErrorPage(response, /redirect_uri is required/);
    });

    it('shows a 400 page for a repeated client_id', async () => {
      const client = await createClient(t, await createUser(t));
      const response = await get(t, `${authorizeUrl(client)}&client_id=${client.clientId}`);
      assertErrorPage(response, /client_id was given more than once/);
    });

    it('shows a 400 page for a repeated redirect_uri', async () => {
      const client = await createClient(t, await createUser(t));
      const response = await get(t, `${authorizeUrl(client)}&redirect_uri=${encodeURIComponent('https://client.example/callback')}`);
      assertErrorPage(response, /redirect_uri was given more than once/);
    });
  });

  describe('RFC 6749 §4.1.2.1 errors after verification carry error, error_description, state and iss', () => {
    const callback = 'https://client.example/callback';

    it('answers a missing response_type with invalid_request', async () => {
      const client = await createClient(t, await createUser(t));
      const params = new URLSearchParams({ client_id: client.clientId, redirect_uri: callback, state: TRICKY_STATE });
      const link = continuationOf(await get(t, `/oauth2/authorize?${params}`));
      assertRedirectedError(link.href, callback, 'invalid_request', TRICKY_STATE);
    });

    it('answers response_type=token with unsupported_response_type', async () => {
      const client = await createClient(t, await createUser(t));
      const link = continuationOf(await get(t, authorizeUrl(client, { response_type: 'token', state: TRICKY_STATE })));
      assertRedirectedError(link.href, callback, 'unsupported_response_type', TRICKY_STATE);
    });

    it('answers an unknown scope with invalid_scope', async () => {
      const client = await createClient(t, await createUser(t));
      const link = continuationOf(await get(t, authorizeUrl(client, { scope: 'read write', state: TRICKY_STATE })));
      assertRedirectedError(link.href, callback, 'invalid_scope', TRICKY_STATE);
    });

    it('answers a repeated state with invalid_request and echoes neither value', async () => {
      const client = await createClient(t, await createUser(t));
      const link = continuationOf(await get(t, `${authorizeUrl(client, { state: 'one' })}&state=two`));
      assertRedirectedError(link.href, callback, 'invalid_request', null);
    });

    it('redirects the error without a page once the signed-in user has approved the application', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const unapproved = continuationOf(await get(t, authorizeUrl(client, { response_type: 'token' }), jar));
      assertRedirectedError(unapproved.href, callback, 'unsupported_response_type', 'xyz-state');
      await approve(t, jar, authorizeUrl(client));
      const response = await get(t, authorizeUrl(client, { response_type: 'token' }), jar);
      assert.equal(response.statusCode, 302);
      assertRedirectedError(response.headers.location as string, callback, 'unsupported_response_type', 'xyz-state');
    });

    it('redirects an error in the answer to the consent form: the user is interacting with Folio', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const page = await get(t, authorizeUrl(client, { state: TRICKY_STATE }), jar);
      const response = await postConsent(t, jar, { ...consentFields(page.body), response_type: 'token', decision: 'approve' });
      assert.equal(response.statusCode, 303);
      assertRedirectedError(response.headers.location as string, callback, 'unsupported_response_type', TRICKY_STATE);
    });
  });

  describe('RFC 9700 §4.11.2 no open redirect', () => {
    const land = 'https://evil.example/land';

    it("shows a page naming the application and its host instead of bouncing a visitor to an attacker's address", async () => {
      const attacker = await createUser(t);
      const client = await createClient(t, attacker, { name: 'Free Stock Tips', redirectUris: [land] });
      const response = await get(t, `/oauth2/authorize?${new URLSearchParams({ client_id: client.clientId, redirect_uri: land })}`);
      const link = continuationOf(response);
      assert.match(response.body, /Free Stock Tips/);
      assert.match(response.body, /<strong>evil\.example<\/strong>/);
      assertRedirectedError(link.href, land, 'invalid_request', null);
    });

    it('does not redirect for a signed-in visitor who never approved the application either, nor with prompt=none', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: [land] });
      const jar = await signIn(t, await createUser(t));
      continuationOf(await get(t, `/oauth2/authorize?${new URLSearchParams({ client_id: client.clientId, redirect_uri: land })}`, jar));
      continuationOf(await get(t, authorizeUrl(client, { prompt: 'none' })));
      continuationOf(await get(t, authorizeUrl(client, { prompt: 'none' }), jar));
    });

    it('escapes the application name on the page', async () => {
      const client = await createClient(t, await createUser(t), { name: 'Tips <b>now</b>' });
      const response = await get(t, authorizeUrl(client, { response_type: 'token' }));
      continuationOf(response);
      assert.ok(!response.body.includes('<b>now</b>'));
      assert.match(response.body, /Tips &lt;b&gt;now&lt;\/b&gt;/);
    });
  });

  describe('RFC 8252 §7.3 loopback redirect URIs', () => {
    it('accepts any port on a registered 127.0.0.1 redirect and sends the code to that port', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: ['http://127.0.0.1/callback'] });
      const jar = await signIn(t, await createUser(t));
      const location = await approve(t, jar, authorizeUrl(client, { redirect_uri: 'http://127.0.0.1:53122/callback' }));
      assert.equal(location.host, '127.0.0.1:53122');
      assert.equal(location.pathname, '/callback');
      assert.match(location.searchParams.get('code')!, /^folio_ac_/);
      assert.equal(location.searchParams.get('state'), 'xyz-state');
    });

    it('accepts any port on a registered [::1] redirect', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: ['http://[::1]/cb'] });
      const jar = await signIn(t, await createUser(t));
      const location = await approve(t, jar, authorizeUrl(client, { redirect_uri: 'http://[::1]:61000/cb' }));
      assert.equal(location.host, '[::1]:61000');
      assert.ok(location.searchParams.has('code'));
    });

    it('still requires the loopback path to match', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: ['http://127.0.0.1/callback'] });
      assertErrorPage(await get(t, authorizeUrl(client, { redirect_uri: 'http://127.0.0.1:53122/other' })), /not registered/);
    });

    it('does not extend the any-port rule to localhost: only the exact registered string matches', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: ['http://localhost/cb'] });
      assertErrorPage(await get(t, authorizeUrl(client, { redirect_uri: 'http://localhost:5000/cb' })), /not registered/);
      const exact = await createClient(t, await createUser(t), { redirectUris: ['http://localhost:5000/cb'] });
      const jar = await signIn(t, await createUser(t));
      const location = await approve(t, jar, authorizeUrl(exact, { redirect_uri: 'http://localhost:5000/cb' }));
      assert.equal(location.host, 'localhost:5000');
    });

    it('does not match an https redirect on another port', async () => {
      const client = await createClient(t, await createUser(t));
      assertErrorPage(await get(t, authorizeUrl(client, { redirect_uri: 'https://client.example:8443/callback' })), /not registered/);
    });
  });

  describe('out-of-band redirect urn:ietf:wg:oauth:2.0:oob', () => {
    const OOB = 'urn:ietf:wg:oauth:2.0:oob';

    const shownCode = (body: string) => /<p class="secret" id="code"[^>]*>(folio_ac_[^<]+)<\/p>/.exec(body)?.[1];

    it('shows the code once, to the browser that approved, never in a URL; it exchanges with redirect_uri=oob', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: [OOB] });
      const jar = await signIn(t, await createUser(t));
      const page = await get(t, authorizeUrl(client), jar);
      assert.match(page.body, /shown a code to copy/);
      const response = await postConsent(t, jar, { ...consentFields(page.body), decision: 'approve' });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, `${ISSUER}/oauth2/authorize/native`);

      assert.match((await get(t, '/oauth2/authorize/native')).body, /No authorization code/, 'a browser without the session sees nothing');
      const other = await signIn(t, await createUser(t));
      assert.match((await get(t, '/oauth2/authorize/native', other)).body, /No authorization code/, 'nor does another session');
      assert.equal((await t.app.inject({ method: 'HEAD', url: '/oauth2/authorize/native', headers: { cookie: cookieHeader(jar) } })).statusCode, 200);

      const native = await get(t, '/oauth2/authorize/native', jar);
      assert.equal(native.statusCode, 200);
      assert.match(String(native.headers['content-type']), /^text\/html/);
      assert.equal(native.headers['cache-control'], 'no-store');
      const code = shownCode(native.body)!;
      assert.match(code, /^folio_ac_/);
      assert.match(native.body, /<script src="\/assets\/copy\.js" defer><\/script>/);
      assert.match(native.body, /<button type="button" class="primary" data-copy="code" hidden>Copy code<\/button>/);
      const again = await get(t, '/oauth2/authorize/native', jar);
      assert.equal(shownCode(again.body), undefined, 'shown once');
      assert.match(again.body, /No authorization code/);

      const tokens = await exchange(t, client, code, OOB);
      assert.equal(tokens.statusCode, 200, tokens.body);
      assert.match(tokens.json().access_token, /^folio_at_/);
    });

    // That the code is held sealed, never in plain text, is checked with every other secret in test/reliability/secrets-at-rest.test.ts.
    it('forgets a code not looked at before it would have expired', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: [OOB] });
      const jar = await signIn(t, await createUser(t));
      await answer(t, jar, authorizeUrl(client, { redirect_uri: OOB }), 'approve');
      t.clock.advance(10 * 60_000 + 1);
      assert.match((await get(t, '/oauth2/authorize/native', jar)).body, /No authorization code/);
    });

    it('shows errors after verification on a page, since there is no address to redirect to', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: [OOB] });
      assertErrorPage(await get(t, authorizeUrl(client, { redirect_uri: OOB, response_type: 'token' })), /response_type=code/);
    });

    it('shows nothing a link carries: neither text nor a code of the right shape (code injection)', async () => {
      const jar = await signIn(t, await createUser(t));
      for (const code of ['Call 555-0100 to verify your account', 'folio_ac_AttackersOwnCodeOfTheRightShape0123456789abcdef']) {
        const spoof = await get(t, `/oauth2/authorize/native?${new URLSearchParams({ code })}`, jar);
        assert.equal(spoof.statusCode, 200);
        assert.ok(!spoof.body.includes(code));
        assert.match(spoof.body, /No authorization code/);
      }
    });

    it("names a native app's private-use scheme as the destination on the consent page (RFC 8252 §7.1)", async () => {
      const client = await createClient(t, await createUser(t), { confidential: false, redirectUris: ['com.example.phone:/cb'] });
      const jar = await signIn(t, await createUser(t));
      const page = await get(t, authorizeUrl(client, { redirect_uri: 'com.example.phone:/cb', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }), jar);
      assert.equal(page.statusCode, 200, page.body.slice(0, 300));
      assert.match(page.body, /sent back to <strong>com\.example\.phone<\/strong>/);
    });

    it("answers a denial with 303 to Folio's own page rather than to the URN", async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: [OOB] });
      const jar = await signIn(t, await createUser(t));
      const denied = await answer(t, jar, authorizeUrl(client, { redirect_uri: OOB }), 'deny');
      assert.equal(denied.statusCode, 303);
      const location = new URL(denied.headers.location as string);
      assert.equal(`${location.origin}${location.pathname}`, `${ISSUER}/oauth2/authorize/native`);
      const page = await get(t, location.pathname + location.search);
      assert.match(page.body, /You denied access/);
      assert.doesNotMatch(page.body, /folio_ac_/);
    });

    it('shows prompt=none errors on a page: login_required, then consent_required', async () => {
      const client = await createClient(t, await createUser(t), { redirectUris: [OOB] });
      assertErrorPage(await get(t, authorizeUrl(client, { redirect_uri: OOB, prompt: 'none' })), /not signed in/);
      const jar = await signIn(t, await createUser(t));
      assertErrorPage(await get(t, authorizeUrl(client, { redirect_uri: OOB, prompt: 'none' }), jar), /not approved/);
    });
  });

  describe('prompt_login=true and prompt=login force a new sign-in (spec §4.1)', () => {
    for (const [label, extra] of [['prompt_login=true', { prompt_login: 'true' }], ['prompt=login', { prompt: 'login' }]] as const) {
      it(`${label} asks for a fresh sign-in; the session lives until it, and signing in as another user continues the flow for that user`, async () => {
        const client = await createClient(t, await createUser(t));
        const first = await createUser(t, 'First Person');
        const second = await createUser(t, 'Second Person');
        const jar = await signIn(t, first);
        const oldSession = { ...jar };

        const forced = await get(t, authorizeUrl(client, extra), jar);
        assert.equal(forced.statusCode, 302);
        const location = new URL(forced.headers.location as string, ISSUER);
        assert.equal(location.pathname, '/login');
        const returnTo = location.searchParams.get('return_to')!;
        const returnParams = new URL(returnTo, ISSUER).searchParams;
        assert.equal(returnParams.has('prompt_login'), false);
        assert.equal(returnParams.has('prompt'), false);
        assert.equal(returnParams.get('client_id'), client.clientId);
        // Any site can send a browser here: a link must not sign anyone out.
        assert.equal(cookiesFrom(forced).folio_session, undefined, 'the session cookie is left alone');
        assert.equal((await get(t, '/portfolios', oldSession)).statusCode, 200, 'the session still signs the user in');
        const page = await get(t, `${location.pathname}${location.search}`, jar);
        assert.match(page.body, new RegExp(`You are signed in as <strong>${first.email}</strong>`));
        // Sign-up would carry the signed-in account straight back to the request, skipping the sign-in.
        assert.doesNotMatch(page.body, /href="\/signup/);

        const signedIn = await signInReturningTo(t, second.email, returnTo, jar);
        assert.equal(signedIn.statusCode, 303);
        assert.equal(signedIn.headers.location, returnTo);
        const stale = await get(t, authorizeUrl(client), oldSession);
        assert.equal(stale.statusCode, 302, 'the replaced session no longer signs anyone in');
        assert.match(stale.headers.location as string, /^\/login\?/);
        const [ended] = await t.storage.audit.listEventsForUser(first.id, 1);
        assert.equal(ended?.type, 'sign_out', 'the first account sees its session end');

        const codeLocation = await approve(t, jar, returnTo);
        const tokens = await exchange(t, client, codeLocation.searchParams.get('code')!);
        assert.equal(tokens.statusCode, 200, tokens.body);
        assert.equal(await userIdOfToken(t, tokens.json().access_token), second.id);
      });

      it(`${label} leaves the session as it was when the user does not sign in again`, async () => {
        const client = await createClient(t, await createUser(t));
        const user = await createUser(t);
        const jar = await signIn(t, user);
        const forced = await get(t, authorizeUrl(client, extra), jar);
        assert.match(forced.headers.location as string, /^\/login\?/);
        // The same request without the prompt goes on as the signed-in user: to consent.
        const again = await get(t, authorizeUrl(client), jar);
        assert.equal(again.statusCode, 200);
        assert.match(again.body, /name="decision"/);
        const events = await t.storage.audit.listEventsForUser(user.id, 10);
        assert.deepEqual(events.map((event) => event.type), ['sign_in.success']);
      });
    }

    it('keeps other prompt values when removing login from the return address', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const forced = await get(t, authorizeUrl(client, { prompt: 'login consent' }), jar);
      const returnTo = new URL(new URL(forced.headers.location as string, ISSUER).searchParams.get('return_to')!, ISSUER);
      assert.equal(returnTo.searchParams.get('prompt'), 'consent');
    });
  });

  describe('remembered consent and prompt=consent', () => {
    it('a confidential application approved once gets its code straight away next time (302)', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      await approve(t, jar, authorizeUrl(client));
      const again = await get(t, authorizeUrl(client, { state: TRICKY_STATE }), jar);
      assert.equal(again.statusCode, 302);
      const location = new URL(again.headers.location as string);
      assert.equal(`${location.origin}${location.pathname}`, 'https://client.example/callback');
      assert.match(location.searchParams.get('code')!, /^folio_ac_/);
      assert.equal(location.searchParams.get('state'), TRICKY_STATE);
      assert.equal(location.searchParams.get('iss'), ISSUER);
    });

    it('an application deleted while its code was being issued: an error page, not a redirect to its URI', async () => {
      const client = await createClient(t, await createUser(t));
      const user = await createUser(t);
      const jar = await signIn(t, user);
      await approve(t, jar, authorizeUrl(client));
      deleteApplicationDuring(t, client, t.storage.codes, 'saveAuthorizationCode');
      assertErrorPage(await get(t, authorizeUrl(client), jar), /deleted by its developer/);
      assert.deepEqual(await t.storage.grants.listConnectedApplications(user.id), []);
    });

    it('a remembered consent belongs to the user who gave it', async () => {
      const client = await createClient(t, await createUser(t));
      await approve(t, await signIn(t, await createUser(t)), authorizeUrl(client));
      const other = await get(t, authorizeUrl(client), await signIn(t, await createUser(t)));
      assert.equal(other.statusCode, 200);
    });

    it('prompt=consent shows the consent page even when consent is remembered', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      await approve(t, jar, authorizeUrl(client));
      const again = await get(t, authorizeUrl(client, { prompt: 'consent' }), jar);
      assert.equal(again.statusCode, 200);
      assert.match(again.body, /Allow access/);
    });

    it('denying withdraws a remembered consent: the next request shows the consent page again', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      await approve(t, jar, authorizeUrl(client));
      assert.equal((await answer(t, jar, authorizeUrl(client, { prompt: 'consent' }), 'deny')).statusCode, 303);
      const again = await get(t, authorizeUrl(client), jar);
      assert.equal(again.statusCode, 200);
      assert.match(again.body, /Allow access/);
    });

    it('a public application is asked every time', async () => {
      const client = await createClient(t, await createUser(t), { confidential: false });
      const jar = await signIn(t, await createUser(t));
      const pkce = { code_challenge: pkcePair().challenge, code_challenge_method: 'S256' };
      const first = await approve(t, jar, authorizeUrl(client, pkce));
      assert.ok(first.searchParams.has('code'));
      const again = await get(t, authorizeUrl(client, pkce), jar);
      assert.equal(again.statusCode, 200);
      assert.match(again.body, /Allow access/);
    });
  });

  describe('prompt=none', () => {
    it('offers login_required by a link when nobody is signed in: nothing says the visitor meant to go to the application', async () => {
      const client = await createClient(t, await createUser(t));
      const link = continuationOf(await get(t, authorizeUrl(client, { prompt: 'none', state: TRICKY_STATE })));
      assertRedirectedError(link.href, 'https://client.example/callback', 'login_required', TRICKY_STATE);
    });

    it('offers consent_required by a link when the user has never approved the application', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const link = continuationOf(await get(t, authorizeUrl(client, { prompt: 'none' }), jar));
      assertRedirectedError(link.href, 'https://client.example/callback', 'consent_required', 'xyz-state');
    });

    it('redirects consent_required once the user has approved the application before (a public one asks every time)', async () => {
      const client = await createClient(t, await createUser(t), { confidential: false });
      const jar = await signIn(t, await createUser(t));
      const pkce = { code_challenge: pkcePair().challenge, code_challenge_method: 'S256' };
      await approve(t, jar, authorizeUrl(client, pkce));
      const response = await get(t, authorizeUrl(client, { ...pkce, prompt: 'none' }), jar);
      assert.equal(response.statusCode, 302);
      assertRedirectedError(response.headers.location as string, 'https://client.example/callback', 'consent_required', 'xyz-state');
    });

    it('issues a code without a page when consent is remembered', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      await approve(t, jar, authorizeUrl(client));
      const response = await get(t, authorizeUrl(client, { prompt: 'none' }), jar);
      assert.equal(response.statusCode, 302);
      assert.ok(new URL(response.headers.location as string).searchParams.has('code'));
    });
  });

  describe('the consent form (POST /oauth2/authorize)', () => {
    async function consentPage(client: TestClient) {
      const user = await createUser(t);
      const jar = await signIn(t, user);
      const page = await get(t, authorizeUrl(client, { state: TRICKY_STATE }), jar);
      assert.equal(page.statusCode, 200);
      return { user, jar, fields: consentFields(page.body) };
    }

    async function assertNothingGranted(userId: number, applicationId: number) {
      assert.equal(await t.storage.consents.findConsent(userId, applicationId), undefined);
      const events = await t.storage.audit.listEventsForUser(userId, 50);
      assert.equal(events.some((event) => event.type === 'consent.granted'), false);
    }

    it('refuses an answer without a CSRF token with an HTML page and issues no code', async () => {
      const client = await createClient(t, await createUser(t));
      const { user, jar, fields } = await consentPage(client);
      const { csrf_token: _dropped, ...withoutCsrf } = fields;
      const response = await postConsent(t, jar, { ...withoutCsrf, decision: 'approve' });
      assert.ok(response.statusCode >= 400 && response.statusCode < 500);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers.location, undefined);
      await assertNothingGranted(user.id, client.application.id);
    });

    it('refuses an answer carrying another session\'s CSRF token', async () => {
      const client = await createClient(t, await createUser(t));
      const { user, jar, fields } = await consentPage(client);
      const attacker = await consentPage(client);
      const response = await postConsent(t, jar, { ...fields, csrf_token: attacker.fields.csrf_token!, decision: 'approve' });
      assert.ok(response.statusCode >= 400 && response.statusCode < 500);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers.location, undefined);
      await assertNothingGranted(user.id, client.application.id);
    });

    it('sends an answer without a session to /login (303), returning to the request', async () => {
      const client = await createClient(t, await createUser(t));
      const { fields } = await consentPage(client);
      const loginPage = await get(t, '/login');
      const visitor = cookiesFrom(loginPage);
      const response = await postConsent(t, visitor, { ...fields, csrf_token: hiddenField(loginPage.body, 'csrf_token'), decision: 'approve' });
      assert.equal(response.statusCode, 303);
      const location = new URL(response.headers.location as string, ISSUER);
      assert.equal(location.pathname, '/login');
      const returnTo = new URL(location.searchParams.get('return_to')!, ISSUER);
      assert.equal(returnTo.pathname, '/oauth2/authorize');
      assert.equal(returnTo.searchParams.get('client_id'), client.clientId);
      assert.equal(returnTo.searchParams.has('decision'), false);
      assert.equal(returnTo.searchParams.has('csrf_token'), false);
    });

    it('redirects (303) with invalid_request when the decision is missing', async () => {
      const client = await createClient(t, await createUser(t));
      const { user, jar, fields } = await consentPage(client);
      const response = await postConsent(t, jar, fields);
      assert.equal(response.statusCode, 303);
      assertRedirectedError(response.headers.location as string, 'https://client.example/callback', 'invalid_request', TRICKY_STATE);
      await assertNothingGranted(user.id, client.application.id);
    });

    it('a decision smuggled into the authorize URL cannot approve on the user\'s behalf', async () => {
      const client = await createClient(t, await createUser(t));
      const jar = await signIn(t, await createUser(t));
      const page = await get(t, authorizeUrl(client, { decision: 'approve' }), jar);
      assert.equal(page.statusCode, 200);
      const body = new URLSearchParams({ ...consentFields(page.body) });
      body.append('decision', 'deny');
      const response = await t.app.inject({ method: 'POST', url: '/oauth2/authorize', payload: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
      assert.equal(response.statusCode, 303);
      const location = new URL(response.headers.location as string);
      assert.equal(location.searchParams.get('code'), null);
      assert.ok(location.searchParams.has('error'));
    });

    it('records consent.granted and consent.denied audit events', async () => {
      const client = await createClient(t, await createUser(t));
      const user = await createUser(t);
      const jar = await signIn(t, user);
      assert.equal((await answer(t, jar, authorizeUrl(client, { prompt: 'consent' }), 'deny')).statusCode, 303);
      assert.equal((await answer(t, jar, authorizeUrl(client, { prompt: 'consent' }), 'approve')).statusCode, 303);
      const events = (await t.storage.audit.listEventsForUser(user.id, 50)).filter((event) => event.type.startsWith('consent.'));
      assert.deepEqual(events.map((event) => event.type).sort(), ['consent.denied', 'consent.granted']);
      for (const event of events) {
        assert.equal(event.applicationId, client.application.id);
        assert.equal(event.detail.scope, 'read');
      }
    });

    // RFC 6749 §4.1.2.1: a client_id no longer valid gets a page, never a redirect to its URI.
    it('an application deleted by its developer while the user approved it: an error page, no redirect, nothing granted', async () => {
      const client = await createClient(t, await createUser(t));
      const { user, jar, fields } = await consentPage(client);
      deleteApplicationDuring(t, client, t.storage.consents, 'rememberConsent');
      const response = await postConsent(t, jar, { ...fields, decision: 'approve' });
      assertErrorPage(response, /deleted by its developer/);
      await assertNothingGranted(user.id, client.application.id);
      assert.deepEqual(await t.storage.grants.listConnectedApplications(user.id), []);
    });

    it('an application deleted by its developer while the user denied it: an error page, no redirect to its URI, nothing recorded', async () => {
      const client = await createClient(t, await createUser(t));
      const { user, jar, fields } = await consentPage(client);
      deleteApplicationDuring(t, client, t.storage.consents, 'forgetConsent');
      const response = await postConsent(t, jar, { ...fields, decision: 'deny' });
      assertErrorPage(response, /deleted by its developer/);
      const events = await t.storage.audit.listEventsForUser(user.id, 50);
      assert.equal(events.some((event) => event.type === 'consent.denied'), false);
    });
  });
});
