// Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"):
// a browser that signed in to an account before keeps its own allowance of
// attempts while strangers have the account locked; the lock shows in Activity.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { hashPassword, needsRehash } from '../../src/platform/password.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, PASSWORD, TEST_PASSWORD_COST, cookieHeader, cookiesFrom, createTestApp, createUser, form, hiddenField,
} from '../support/app.ts';

type Jar = Record<string, string>;

/** One sign-in through the form with the browser's cookies; the jar keeps what the answer sets. */
async function attempt(t: TestApp, jar: Jar, email: string, password: string, remoteAddress = '127.0.0.1') {
  const page = await t.app.inject({ method: 'GET', url: '/login', remoteAddress, headers: { cookie: cookieHeader(jar) } });
  Object.assign(jar, cookiesFrom(page));
  const response = await t.app.inject({
    method: 'POST', url: '/login', remoteAddress,
    ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: '/', email, password }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
  });
  Object.assign(jar, cookiesFrom(response));
  return response;
}

async function lockOut(t: TestApp, email: string, remoteAddress = '203.0.113.9') {
  for (let i = 0; i < 5; i++) await attempt(t, {}, email, 'wrong password', remoteAddress);
}

describe('device cookies', () => {
  let t: TestApp;
  let user: User;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
  });
  afterEach(async () => { await t.close(); });

  it('gives a browser that signed in a year-long, HttpOnly device cookie', async () => {
    const response = await attempt(t, {}, user.email, PASSWORD);
    assert.equal(response.statusCode, 303);
    const device = response.cookies.find((cookie) => cookie.name === 'folio_device')!;
    assert.match(device.value, /^folio_dv_/);
    assert.equal(device.maxAge, 365 * 24 * 60 * 60);
    assert.equal(device.httpOnly, true);
    assert.equal(device.sameSite, 'Lax');
  });

  it("lets the owner's browser sign in while strangers have the account locked, and refuses a new browser", async () => {
    const owner: Jar = {};
    assert.equal((await attempt(t, owner, user.email, PASSWORD)).statusCode, 303);
    await lockOut(t, user.email);
    assert.equal((await attempt(t, {}, user.email, PASSWORD)).statusCode, 429, 'a browser never seen before waits');
    const signedIn = await attempt(t, owner, user.email, PASSWORD);
    assert.equal(signedIn.statusCode, 303);
    assert.ok(cookiesFrom(signedIn).folio_session);
  });

  it('stops trusting a browser a year after its last sign-in, whatever cookie it still sends', async () => {
    const owner: Jar = {};
    assert.equal((await attempt(t, owner, user.email, PASSWORD)).statusCode, 303);
    t.clock.advance(366 * 24 * 60 * 60 * 1000);
    await lockOut(t, user.email);
    assert.equal((await attempt(t, owner, user.email, PASSWORD)).statusCode, 429);
  });

  it('lets the owner in past a proxy address that twenty failures locked (FOLIO_TRUST_PROXY off)', async () => {
    const owner: Jar = {};
    await attempt(t, owner, user.email, PASSWORD, '10.0.0.1');
    for (let i = 0; i < 20; i++) await attempt(t, {}, (await createUser(t)).email, 'wrong password', '10.0.0.1');
    assert.equal((await attempt(t, {}, user.email, PASSWORD, '10.0.0.1')).statusCode, 429);
    assert.equal((await attempt(t, owner, user.email, PASSWORD, '10.0.0.1')).statusCode, 303);
  });

  it("gives a trusted browser an allowance of its own: five wrong passwords lock that browser, not the account's other ones", async () => {
    const owner: Jar = {};
    const laptop: Jar = {};
    await attempt(t, owner, user.email, PASSWORD);
    await attempt(t, laptop, user.email, PASSWORD);
    for (let i = 0; i < 4; i++) assert.equal((await attempt(t, owner, user.email, 'wrong')).statusCode, 401);
    assert.equal((await attempt(t, owner, user.email, 'wrong')).statusCode, 429);
    assert.equal((await attempt(t, owner, user.email, PASSWORD)).statusCode, 429);
    assert.equal((await attempt(t, laptop, user.email, PASSWORD)).statusCode, 303);
    assert.equal((await attempt(t, {}, user.email, PASSWORD)).statusCode, 303, 'nor strangers: the account itself was never locked');
  });

  it("does not trust a browser for an account it never signed in to, nor a cookie Folio did not make", async () => {
    const other = await createUser(t);
    const browser: Jar = {};
    await attempt(t, browser, other.email, PASSWORD);
    await lockOut(t, user.email);
    assert.equal((await attempt(t, browser, user.email, PASSWORD)).statusCode, 429);
    for (const forged of ['folio_dv_madeup', 'x'.repeat(5000), '']) {
      assert.equal((await attempt(t, { folio_device: forged }, user.email, PASSWORD)).statusCode, 429);
    }
  });

  it("shows the lock in the account's Activity, with until when", async () => {
    const owner: Jar = {};
    await attempt(t, owner, user.email, PASSWORD);
    await lockOut(t, user.email);
    const events = await t.storage.audit.listEventsForUser(user.id, 100);
    const locked = events.filter((event) => event.type === 'sign_in.locked');
    assert.equal(locked.length, 1);
    assert.equal(locked[0]!.detail.until, t.clock.now() + 60_000);
    assert.equal(locked[0]!.ip, '203.0.113.9');
    const activity = await t.app.inject({ method: 'GET', url: '/activity', headers: { cookie: cookieHeader(owner) } });
    assert.match(activity.body, /Sign-in locked after failed attempts, until <time[^>]*>[^<]+<\/time>, for browsers that never signed in to your account/);
  });
});

describe('password hashes made at a lower cost', () => {
  it('are made again at the current cost at the next successful sign-in, and still sign in', async () => {
    const current = { N: TEST_PASSWORD_COST.N * 2, r: 8, p: 1 };
    const t = await createTestApp({}, { passwordCost: current });
    try {
      const user = await createUser(t);
      const before = (await t.storage.users.findUserCredentials(user.email))!.passwordHash;
      assert.equal(needsRehash(before, current), true);
      assert.equal((await attempt(t, {}, user.email, 'wrong password')).statusCode, 401);
      assert.equal((await t.storage.users.findUserCredentials(user.email))!.passwordHash, before, 'a wrong password changes nothing');
      assert.equal((await attempt(t, {}, user.email, PASSWORD)).statusCode, 303);
      const after = (await t.storage.users.findUserCredentials(user.email))!.passwordHash;
      assert.notEqual(after, before);
      assert.equal(needsRehash(after, current), false);
      assert.equal((await attempt(t, {}, user.email, PASSWORD)).statusCode, 303);
      assert.equal((await t.storage.users.findUserCredentials(user.email))!.passwordHash, after, 'made once');
      assert.notEqual(await hashPassword(PASSWORD, current), after, 'salted');
    } finally {
      await t.close();
    }
  });
});
