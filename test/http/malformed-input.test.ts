// Whatever arrives, the answer is a 4xx in the shape the route speaks (RFC
// 6749 §5.2 JSON for the protocol, an HTML page for browser routes), never a
// 5xx (DESIGN §2 "Token endpoint": anything else is 400, never 500).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { type TestApp, authorizeUrl, bearer, cookieHeader, cookiesFrom, createClient, createTestApp, createUser, hiddenField, signIn } from '../support/app.ts';

function assertJsonError(response: LightMyRequestResponse, status: number, error: string) {
  assert.equal(response.statusCode, status, response.body.slice(0, 300));
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, 'string');
}

function assertHtmlClientError(response: LightMyRequestResponse) {
  assert.ok(response.statusCode >= 400 && response.statusCode < 500, `status ${response.statusCode}: ${response.body.slice(0, 200)}`);
  assert.match(String(response.headers['content-type']), /^text\/html/);
}

const multipart = (boundary: string, body: string) => ({
  headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  payload: body.replace(/\n/g, '\r\n'),
});

describe('malformed input', () => {
  let t: TestApp;
  beforeEach(async () => { t = await createTestApp(); });
  afterEach(async () => { await t.close(); });

  const token = (options: Omit<InjectOptions, 'method' | 'url'>) => t.app.inject({ method: 'POST', url: '/oauth2/token', ...options });

  describe('token endpoint bodies', () => {
    it('refuses a text/plain body with 400 invalid_request', async () => {
      assertJsonError(await token({ headers: { 'content-type': 'text/plain' }, payload: 'grant_type=client_credentials' }), 400, 'invalid_request');
    });

    it('refuses a body without a content type', async () => {
      const response = await token({ payload: 'grant_type=client_credentials', headers: { 'content-type': '' } });
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, String(response.statusCode));
    });

    it('refuses invalid UTF-8 in a urlencoded body', async () => {
      const payload = Buffer.concat([Buffer.from('grant_type=client_credentials&client_id='), Buffer.from([0xff, 0xfe, 0xc3])]);
      assertJsonError(await token({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload }), 400, 'invalid_request');
    });

    for (const bad of ['%zz', '%C3%28', '%', '%E2%82']) {
      it(`refuses the percent-encoding ${bad}`, async () => {
        const response = await token({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${bad}` });
        assertJsonError(response, 400, 'invalid_request');
      });
    }

    it('refuses a truncated multipart body', async () => {
      const response = await token(multipart('XyZ', '--XyZ\nContent-Disposition: form-data; name="grant_type"\n\nclient_cre'));
      assertJsonError(response, 400, 'invalid_request');
    });

    it('refuses a multipart body without a boundary', async () => {
      const response = await token({ headers: { 'content-type': 'multipart/form-data' }, payload: 'grant_type=client_credentials' });
      assertJsonError(response, 400, 'invalid_request');
    });

    it('refuses a multipart file part', async () => {
      const response = await token(multipart('XyZ', [
        '--XyZ', 'Content-Disposition: form-data; name="grant_type"', '', 'client_credentials',
        '--XyZ', 'Content-Disposition: form-data; name="upload"; filename="secrets.txt"', 'Content-Type: text/plain', '', 'hello',
        '--XyZ--', '',
      ].join('\n')));
      assertJsonError(response, 400, 'invalid_request');
    });

    // Found by the fuzzer (test/reliability/fuzz.test.ts): a nameless part with a long
    // value threw inside busboy's event handler and took the whole process down.
    for (const value of ['short', 'a'.repeat(9000)]) {
      it(`refuses a multipart part without a field name (${value.length} bytes)`, async () => {
        const response = await token(multipart('XyZ', ['--XyZ', 'Content-Disposition: form-data', '', value, '--XyZ--', ''].join('\n')));
        assertJsonError(response, 400, 'invalid_request');
      });
    }

    it('accepts a well-formed multipart body (the parser is not simply refusing everything)', async () => {
      const response = await token(multipart('XyZ', ['--XyZ', 'Content-Disposition: form-data; name="grant_type"', '', 'client_credentials', '--XyZ--', ''].join('\n')));
      assertJsonError(response, 401, 'invalid_client');
    });

    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', `grant_type=client_credentials&pad=${'a'.repeat(70 * 1024)}`],
      ['application/json', JSON.stringify({ grant_type: 'client_credentials', pad: 'a'.repeat(70 * 1024) })],
      ['multipart/form-data; boundary=XyZ', `--XyZ\r\nContent-Disposition: form-data; name="pad"\r\n\r\n${'a'.repeat(70 * 1024)}\r\n--XyZ--\r\n`],
    ] as const) {
      it(`answers a 70 KB ${type.split(';')[0]} body with 413 payload_too_large`, async () => {
        assertJsonError(await token({ headers: { 'content-type': type }, payload }), 413, 'payload_too_large');
      });
    }

    for (const [label, payload] of [
      ['a JSON array', '["grant_type", "client_credentials"]'],
      ['a JSON string', '"grant_type=client_credentials"'],
      ['a JSON null', 'null'],
      ['a nested object value', '{"grant_type": {"value": "client_credentials"}}'],
      ['an array value', '{"grant_type": ["client_credentials"]}'],
      ['invalid JSON', '{"grant_type": "client_credentials"'],
      ['an empty JSON body', ''],
    ] as const) {
      it(`refuses ${label} with 400 invalid_request`, async () => {
        assertJsonError(await token({ headers: { 'content-type': 'application/json' }, payload }), 400, 'invalid_request');
      });
    }

    it('refuses 150 parameters', async () => {
      const params = new URLSearchParams({ grant_type: 'client_credentials' });
      for (let i = 0; i < 150; i++) params.append(`p${i}`, 'x');
      assertJsonError(await token({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: params.toString() }), 400, 'invalid_request');
    });

    it('treats __proto__ as an ordinary parameter name', async () => {
      const response = await token({ headers: { 'content-type': 'application/json' }, payload: '{"__proto__": {"grant_type": "client_credentials"}, "constructor": "x"}' });
      assertJsonError(response, 400, 'invalid_request');
    });
  });

  describe('methods and paths', () => {
    it('answers PUT /oauth2/token with 405 and Allow: POST', async () => {
      const response = await t.app.inject({ method: 'PUT', url: '/oauth2/token' });
      assertJsonError(response, 405, 'method_not_allowed');
      assert.equal(response.headers.allow, 'POST');
    });

    it('answers DELETE /api/v2/portfolios with 405 and Allow: GET', async () => {
      const response = await t.app.inject({ method: 'DELETE', url: '/api/v2/portfolios' });
      assertJsonError(response, 405, 'method_not_allowed');
      assert.equal(response.headers.allow, 'GET, HEAD');
    });

    it('answers DELETE /oauth2/authorize with a 405 page', async () => {
      const response = await t.app.inject({ method: 'DELETE', url: '/oauth2/authorize' });
      assert.equal(response.statusCode, 405);
      assert.match(String(response.headers.allow), /GET/);
    });

    it('answers an unknown path with 404 JSON not_found', async () => {
      assertJsonError(await t.app.inject({ method: 'GET', url: '/no/such/thing' }), 404, 'not_found');
      assertJsonError(await t.app.inject({ method: 'POST', url: '/api/v3/portfolios' }), 404, 'not_found');
    });

    for (const url of ['/api/v2/portfolios/%zz', '/no/%C3%28/where', `/api/v2/portfolios/${'1'.repeat(500)}`]) {
      it(`answers the path ${url.slice(0, 40)} with RFC-shaped JSON, not the framework's own error`, async () => {
        const response = await t.app.inject({ method: 'GET', url });
        assertJsonError(response, 400, 'invalid_request');
        assert.equal(response.headers['cache-control'], 'no-store');
      });
    }

    it('answers a NUL in a portfolio id without a 5xx', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios/%00' });
      assertJsonError(response, 401, 'invalid_token');
    });
  });

  describe('query strings and headers', () => {
    for (const query of ['client_id=%zz', 'response_type=code&state=%C3%28', 'redirect_uri=%E2%82']) {
      it(`shows a 400 page, not a 500, for /oauth2/authorize?${query}`, async () => {
        const response = await t.app.inject({ method: 'GET', url: `/oauth2/authorize?${query}` });
        assert.equal(response.statusCode, 400);
        assert.match(String(response.headers['content-type']), /^text\/html/);
        assert.equal(response.headers.location, undefined);
      });
    }

    it('refuses a bad query string on routes that read no query too, as a bad path is refused', async () => {
      for (const [method, url] of [['GET', '/healthz?x=%zz'], ['POST', '/oauth2/token?x=%C3%28'], ['GET', '/.well-known/oauth-authorization-server?a=%00']] as const) {
        assertJsonError(await t.app.inject({ method, url }), 400, 'invalid_request');
      }
    });

    it('refuses a bad query string on the API with invalid_request', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios?x=%zz', headers: bearer('whatever') });
      assertJsonError(response, 400, 'invalid_request');
    });

    it('survives a huge Authorization header', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios', headers: bearer('a'.repeat(200_000)) });
      assertJsonError(response, 401, 'invalid_token');
    });

    it('survives a huge cookie header on a page', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/login', headers: { cookie: `folio_session=${'a'.repeat(100_000)}; folio_csrf=${'b'.repeat(100_000)}` } });
      assert.equal(response.statusCode, 200);
    });

    it('survives a huge token-endpoint Basic header', async () => {
      const response = await token({ headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${'QUFB'.repeat(50_000)}` }, payload: 'grant_type=client_credentials' });
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${response.statusCode}`);
    });

    it('survives an Authorization header that is not Bearer-shaped', async () => {
      for (const authorization of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer\ttoken', 'Token abc']) {
        const response = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios', headers: { authorization } });
        assert.ok(response.statusCode === 400 || response.statusCode === 401, `${JSON.stringify(authorization)}: ${response.statusCode}`);
      }
    });
  });

  describe('browser routes answer malformed bodies with an HTML page', () => {
    async function loginForm() {
      const page = await t.app.inject({ method: 'GET', url: '/login' });
      return { jar: cookiesFrom(page), csrf: hiddenField(page.body, 'csrf_token') };
    }

    const bodies: [string, string, string | Buffer][] = [
      ['bad percent-encoding', 'application/x-www-form-urlencoded', 'email=%zz&password=x'],
      ['invalid UTF-8', 'application/x-www-form-urlencoded', Buffer.from([0x65, 0x3d, 0xff, 0xfe])],
      ['text/plain', 'text/plain', 'email=a&password=b'],
      ['invalid JSON', 'application/json', '{'],
      ['a truncated multipart body', 'multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="email"\r\n\r\nab'],
      ['a 70 KB body', 'application/x-www-form-urlencoded', `email=${'a'.repeat(70 * 1024)}`],
    ];

    for (const [label, type, payload] of bodies) {
      it(`POST /login with ${label}`, async () => {
        const { jar } = await loginForm();
        const response = await t.app.inject({ method: 'POST', url: '/login', payload, headers: { 'content-type': type, cookie: cookieHeader(jar) } });
        assertHtmlClientError(response);
        assert.equal(cookiesFrom(response).folio_session, undefined);
      });

      it(`POST /oauth2/authorize with ${label}`, async () => {
        const user = await createUser(t);
        const jar = await signIn(t, user);
        const response = await t.app.inject({ method: 'POST', url: '/oauth2/authorize', payload, headers: { 'content-type': type, cookie: cookieHeader(jar) } });
        assertHtmlClientError(response);
        assert.equal(response.headers.location, undefined);
      });
    }

    it('POST /oauth2/authorize with a valid CSRF token but 150 parameters', async () => {
      const user = await createUser(t);
      const client = await createClient(t, user);
      const jar = await signIn(t, user);
      const consent = await t.app.inject({ method: 'GET', url: authorizeUrl(client), headers: { cookie: cookieHeader(jar) } });
      const params = new URLSearchParams({ csrf_token: hiddenField(consent.body, 'csrf_token') });
      for (let i = 0; i < 150; i++) params.append(`p${i}`, 'x');
      const response = await t.app.inject({ method: 'POST', url: '/oauth2/authorize', payload: params.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
      assertHtmlClientError(response);
    });

    it('POST /logout with bad percent-encoding', async () => {
      const { jar, csrf } = await loginForm();
      const response = await t.app.inject({ method: 'POST', url: '/logout', payload: `csrf_token=${csrf}&x=%zz`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
      assertHtmlClientError(response);
    });
  });
});
