// Folio behind https (FOLIO_BASE_URL https://…): Strict-Transport-Security on every
// response, and cookies a sibling subdomain can neither read nor plant (__Host-).
// And behind a proxy it was not told about: one warning in the log.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import type { User } from '../../src/domain/records.ts';
import { type TestApp, PASSWORD, cookieHeader, cookiesFrom, createTestApp, createUser, form, hiddenField } from '../support/app.ts';
import { createTestStorage } from '../support/storage.ts';

const HSTS = 'max-age=31536000';

async function signInThroughForm(t: TestApp, user: User, jar: Record<string, string> = {}) {
  const page = await t.app.inject({ method: 'GET', url: '/login', headers: { cookie: cookieHeader(jar) } });
  Object.assign(jar, cookiesFrom(page));
  const response = await t.app.inject({
    method: 'POST', url: '/login', ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: '/portfolios', email: user.email, password: PASSWORD }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
  });
  return { page, response };
}

describe('served over https', () => {
  let t: TestApp;
  let user: User;
  beforeEach(async () => {
    t = await createTestApp({ FOLIO_BASE_URL: 'https://folio.example' });
    user = await createUser(t);
  });
  afterEach(async () => { await t.close(); });

  it('sends Strict-Transport-Security on pages, the API, errors and requests refused before routing', async () => {
    for (const url of ['/login', '/api/v2/portfolios.json', '/nowhere', '/api/v2/portfolios/%zz', '/.well-known/oauth-authorization-server']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.headers['strict-transport-security'], HSTS, url);
    }
  });

  it('names every cookie __Host-: Secure, host-only, path /', async () => {
    const { page, response } = await signInThroughForm(t, user);
    assert.equal(response.statusCode, 303);
    const set = [...page.cookies, ...response.cookies].filter((cookie) => cookie.value !== '');
    assert.deepEqual([...new Set(set.map((cookie) => cookie.name))].sort(), ['__Host-folio_csrf', '__Host-folio_device', '__Host-folio_session']);
    for (const cookie of set) {
      assert.equal(cookie.secure, true, cookie.name);
      assert.equal(cookie.path, '/', cookie.name);
      assert.equal(cookie.domain, undefined, cookie.name);
    }
    const portfolios = await t.app.inject({ method: 'GET', url: '/portfolios', headers: { cookie: cookieHeader(cookiesFrom(response)) } });
    assert.equal(portfolios.statusCode, 200);
  });

  it('does not know a session cookie by its old name: everyone signs in again once', async () => {
    const { response } = await signInThroughForm(t, user);
    const id = cookiesFrom(response)['__Host-folio_session']!;
    const portfolios = await t.app.inject({ method: 'GET', url: '/portfolios', headers: { cookie: `folio_session=${id}` } });
    assert.equal(portfolios.statusCode, 302);
    assert.match(String(portfolios.headers.location), /^\/login/);
  });

  it('refuses a sign-in whose CSRF cookie a sibling subdomain planted (it cannot set a __Host- one)', async () => {
    const planted = 'A'.repeat(43);
    const response = await t.app.inject({
      method: 'POST', url: '/login', ...form({ csrf_token: planted, return_to: '/', email: user.email, password: PASSWORD }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `folio_csrf=${planted}` },
    });
    assert.equal(response.statusCode, 403);
    assert.equal(cookiesFrom(response)['__Host-folio_session'], undefined);
  });
});

describe('served over plain http on this machine', () => {
  it('sends no Strict-Transport-Security, and cookies without the prefix (browsers refuse __Host- without Secure)', async () => {
    const t = await createTestApp();
    try {
      const response = await t.app.inject({ method: 'GET', url: '/login' });
      assert.equal(response.headers['strict-transport-security'], undefined);
      assert.deepEqual(response.cookies.map((cookie) => cookie.name), ['folio_csrf']);
    } finally {
      await t.close();
    }
  });
});

describe('X-Forwarded-For while FOLIO_TRUST_PROXY is off', () => {
  async function warningsAfter(env: Record<string, string>, requests: Record<string, string>[]): Promise<string[]> {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const config = loadConfig(env);
    const storage = await createTestStorage();
    const app = await buildApp({ config, storage, clock: new FixedClock(), random: cryptoRandom, logger: createLogger(config, sink) });
    try {
      for (const headers of requests) await app.inject({ method: 'GET', url: '/healthz', headers });
    } finally {
      await app.close();
      await storage.close();
    }
    return lines.filter((line) => line.level === 40).map((line) => line.msg);
  }

  it('warns once, naming the variable, however many requests carry it', async () => {
    const warnings = await warningsAfter({}, [{}, { 'x-forwarded-for': '198.51.100.7' }, { 'x-forwarded-for': '198.51.100.8' }]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /X-Forwarded-For.*FOLIO_TRUST_PROXY/);
  });

  it('says nothing when proxies are trusted, or when no request carries it', async () => {
    assert.deepEqual(await warningsAfter({ FOLIO_TRUST_PROXY: '1' }, [{ 'x-forwarded-for': '198.51.100.7' }]), []);
    assert.deepEqual(await warningsAfter({}, [{}, {}]), []);
  });
});
