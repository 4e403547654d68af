// Sign-in failure limits (DESIGN §2): per account and per address, with growing
// lockouts, the same answer for unknown emails, and no password check while locked.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PASSWORD_COST } from '../../src/platform/password.ts';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, PASSWORD, cookieHeader, cookiesFrom, createTestApp, createUser, form, hiddenField,
} from '../support/app.ts';

type Jar = Record<string, string>;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function attempt(t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1', forwardedFor?: string) {
  const jar: Jar = {};
  const forwarded: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  const page = await t.app.inject({ method: 'GET', url: '/login', remoteAddress, headers: forwarded });
  Object.assign(jar, cookiesFrom(page));
  return t.app.inject({
    method: 'POST', url: '/login', remoteAddress,
    ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: '/', email, password }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar), ...forwarded },
  });
}

/** Fetches every form first, then posts them all at once: the attempts race each other. */
async function burst(t: TestApp, emails: string[], password: string, remoteAddress = '127.0.0.1') {
  const posts = [];
  for (const email of emails) {
    const page = await t.app.inject({ method: 'GET', url: '/login', remoteAddress });
    posts.push({
      method: 'POST' as const, url: '/login', remoteAddress,
      ...form({ csrf_token: hiddenField(page.body, 'csrf_token'), return_to: '/', email, password }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(cookiesFrom(page)) },
    });
  }
  return Promise.all(posts.map((post) => t.app.inject(post)));
}

async function fail(t: TestApp, email: string, times: number, remoteAddress?: string) {
  for (let i = 0; i < times; i++) await attempt(t, email, 'wrong password', remoteAddress);
}

/**
 * The emails of `count` accounts of their own. Their wrong passwords are checked at the
 * tests' low scrypt cost, where an unknown email's dummy check runs at the real one
 * (support/app.ts): twenty unknown emails cost a test about five seconds.
 */
async function accounts(t: TestApp, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, async () => (await createUser(t)).email));
}

const message = (html: string) => /<p class="error"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];

describe('sign-in failure limits', () => {
  let t: TestApp;
  let user: User;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
  });
  afterEach(async () => { await t.close(); });

  describe('per account', () => {
    it('allows four wrong passwords, then locks the account for a minute at the fifth', async () => {
      for (let i = 0; i < 4; i++) assert.equal((await attempt(t, user.email, 'wrong')).statusCode, 401);
      const fifth = await attempt(t, user.email, 'wrong');
      assert.equal(fifth.statusCode, 429);
      assert.equal(fifth.headers['retry-after'], '60');
      assert.equal(message(fifth.body), 'Too many failed sign-in attempts. Try again in 1 minute.');
      assert.match(String(fifth.headers['content-type']), /^text\/html/);
    });

    it('refuses even the right password while locked, without a session', async () => {
      await fail(t, user.email, 5);
      const response = await attempt(t, user.email, PASSWORD);
      assert.equal(response.statusCode, 429);
      assert.equal(cookiesFrom(response).folio_session, undefined);
    });

    it('lets the right password in once the lock has passed', async () => {
      await fail(t, user.email, 5);
      t.clock.advance(MINUTE);
      assert.equal((await attempt(t, user.email, PASSWORD)).statusCode, 303);
    });

    it('doubles the lock with every further failure, up to an hour', async () => {
      await fail(t, user.email, 5);
      const expected = [2, 4, 8, 16, 32, 60, 60];
      for (const minutes of expected) {
        t.clock.advance(HOUR);
        const response = await attempt(t, user.email, 'wrong');
        assert.equal(response.statusCode, 429);
        assert.equal(response.headers['retry-after'], String(minutes * 60));
        assert.equal(message(response.body), `Too many failed sign-in attempts. Try again in ${minutes} minutes.`);
      }
    });

    it('counts down the time left while locked, and does not extend the lock', async () => {
      await fail(t, user.email, 5);
      t.clock.advance(MINUTE);
      await fail(t, user.email, 1);
      t.clock.advance(30_000);
      const response = await attempt(t, user.email, 'wrong');
      assert.equal(response.statusCode, 429);
      assert.equal(response.headers['retry-after'], '90');
      assert.equal(message(response.body), 'Too many failed sign-in attempts. Try again in 2 minutes.');
      t.clock.advance(90_000);
      assert.equal((await attempt(t, user.email, PASSWORD)).statusCode, 303);
    });

    it('treats the email case-insensitively, as accounts do', async () => {
      await fail(t, user.email.toUpperCase(), 5);
      assert.equal((await attempt(t, ` ${user.email} `, PASSWORD)).statusCode, 429);
    });

    it('does not lock other accounts', async () => {
      const other = await createUser(t, 'Other Person');
      await fail(t, user.email, 5);
      assert.equal((await attempt(t, other.email, PASSWORD)).statusCode, 303);
    });

    it('clears the count after a successful sign-in', async () => {
      await fail(t, user.email, 4);
      assert.equal((await attempt(t, user.email, PASSWORD)).statusCode, 303);
      for (let i = 0; i < 4; i++) assert.equal((await attempt(t, user.email, 'wrong')).statusCode, 401);
    });

    it('forgets failures after a quiet day', async () => {
      await fail(t, user.email, 4);
      t.clock.advance(24 * HOUR);
      for (let i = 0; i < 4; i++) assert.equal((await attempt(t, user.email, 'wrong')).statusCode, 401);
    });

    it('does not check the password while locked', async () => {
      await fail(t, user.email, 5);
      let hashRead = false;
      const find = t.storage.users.findUserCredentials.bind(t.storage.users);
      t.storage.users.findUserCredentials = async (email) => {
        const found = await find(email);
        return found && { ...found, get passwordHash() { hashRead = true; return found.passwordHash; } };
      };
      assert.equal((await attempt(t, user.email, PASSWORD)).statusCode, 429);
      assert.equal(hashRead, false);
      t.clock.advance(MINUTE);
      assert.equal((await attempt(t, user.email, PASSWORD)).statusCode, 303);
      assert.equal(hashRead, true, 'the spy sees a real check');
    });

    it('checks five passwords of a burst of parallel guesses, and refuses the rest unchecked', async () => {
      const answers = await burst(t, Array.from({ length: 12 }, () => user.email), 'wrong');
      assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [...Array(4).fill(401), ...Array(8).fill(429)]);
      const failures = (await t.storage.audit.listEventsForUser(user.id, 20)).filter((event) => event.type === 'sign_in.failure');
      assert.equal(failures.length, 12);
      assert.equal(failures.filter((event) => event.detail.locked !== true).length, 5, 'passwords checked');
      // The refused guesses did not count: the lock is the fifth failure's minute, no longer.
      t.clock.advance(MINUTE);
      assert.equal((await attempt(t, user.email, PASSWORD)).statusCode, 303);
    });

    it('records every failed attempt as sign_in.failure, those refused while locked too', async () => {
      await fail(t, user.email, 6);
      const events = await t.storage.audit.listEventsForUser(user.id, 20);
      assert.equal(events.filter((event) => event.type === 'sign_in.failure').length, 6);
      assert.ok(events.some((event) => event.detail.locked === true));
    });
  });

  describe('unknown emails', () => {
    it('are counted and locked exactly like real accounts, with the same words', async () => {
      const answers = async (email: string) => {
        const statuses: number[] = [];
        const messages: (string | undefined)[] = [];
        for (let i = 0; i < 6; i++) {
          const response = await attempt(t, email, 'wrong', email === user.email ? '192.0.2.1' : '192.0.2.2');
          statuses.push(response.statusCode);
          messages.push(message(response.body));
        }
        return { statuses, messages, retryAfter: (await attempt(t, email, 'wrong', '192.0.2.3')).headers['retry-after'] };
      };
      const real = await answers(user.email);
      const unknown = await answers('nobody@example.test');
      assert.deepEqual(unknown, real);
      assert.deepEqual(real.statuses, [401, 401, 401, 401, 429, 429]);
    });
  });

  describe('per address behind a proxy (FOLIO_TRUST_PROXY)', () => {
    it('counts the forwarded client address when the proxy is trusted', async () => {
      const proxied = await createTestApp({ FOLIO_TRUST_PROXY: '10.0.0.5' });
      try {
        const victims = await accounts(proxied, 20);
        for (let i = 0; i < 20; i++) await attempt(proxied, victims[i]!, 'wrong', '10.0.0.5', '203.0.113.7');
        assert.equal((await attempt(proxied, 'other@example.test', 'wrong', '10.0.0.5', '203.0.113.7')).statusCode, 429);
        // Another client behind the same proxy is not locked out with the first.
        assert.equal((await attempt(proxied, 'other@example.test', 'wrong', '10.0.0.5', '198.51.100.1')).statusCode, 401);
      } finally {
        await proxied.close();
      }
    });

    it('trusts exactly the configured number of proxy hops', async () => {
      const proxied = await createTestApp({ FOLIO_TRUST_PROXY: '1' });
      try {
        // The client forged an extra hop; with one trusted hop the address the proxy saw counts.
        const victims = await accounts(proxied, 20);
        for (let i = 0; i < 20; i++) await attempt(proxied, victims[i]!, 'wrong', '10.0.0.5', `192.0.2.${i}, 203.0.113.7`);
        assert.equal((await attempt(proxied, 'other@example.test', 'wrong', '10.0.0.5', '192.0.2.99, 203.0.113.7')).statusCode, 429);
      } finally {
        await proxied.close();
      }
    });

    it('ignores X-Forwarded-For from an untrusted peer, so a forged header cannot dodge the limit', async () => {
      const victims = await accounts(t, 20);
      for (let i = 0; i < 20; i++) await attempt(t, victims[i]!, 'wrong', '203.0.113.9', `198.51.100.${i}`);
      assert.equal((await attempt(t, 'other@example.test', 'wrong', '203.0.113.9', '192.0.2.1')).statusCode, 429);
    });
  });

  describe('per address', () => {
    it('locks an address after twenty failures across different emails', async () => {
      // Unknown emails, as a sprayer's mostly are: they count toward the address as accounts'
      // wrong passwords do (most other tests use accounts, whose checks are cheaper here).
      for (let i = 0; i < 19; i++) {
        assert.equal((await attempt(t, `victim${i}@example.test`, 'wrong', '203.0.113.7')).statusCode, 401, `attempt ${i + 1}`);
      }
      const twentieth = await attempt(t, 'victim19@example.test', 'wrong', '203.0.113.7');
      assert.equal(twentieth.statusCode, 429);
      assert.equal(message(twentieth.body), 'Too many failed sign-in attempts. Try again in 1 minute.');
      // Even a right password for an untouched account waits, from that address only.
      assert.equal((await attempt(t, user.email, PASSWORD, '203.0.113.7')).statusCode, 429);
      assert.equal((await attempt(t, user.email, PASSWORD, '198.51.100.1')).statusCode, 303);
    });

    it('checks twenty passwords of a parallel burst across many emails from one address', async () => {
      // At the real scrypt cost, so the burst's checks overlap as widely as a real one's.
      await t.close();
      t = await createTestApp({}, { passwordCost: PASSWORD_COST });
      user = await createUser(t);
      const sprayed = Array.from({ length: 30 }, (_, i) => `sprayed${i}@example.test`);
      const answers = await burst(t, sprayed, 'wrong', '203.0.113.9');
      const statuses = answers.map((answer) => answer.statusCode);
      assert.equal(statuses.filter((status) => status === 401).length, 19);
      assert.equal(statuses.filter((status) => status === 429).length, 11);
      // Only the twenty checked guesses counted: the lock is the twentieth failure's minute,
      // where thirty would have locked the address for an hour.
      t.clock.advance(MINUTE);
      assert.equal((await attempt(t, sprayed[0]!, 'wrong', '203.0.113.9')).statusCode, 429, 'the 21st failure locks again');
      t.clock.advance(2 * MINUTE);
      assert.equal((await attempt(t, user.email, PASSWORD, '203.0.113.9')).statusCode, 303);
    });

    it('asks a locked account to wait for its address lock too, when that lasts longer', async () => {
      // The address: locked at its 20th failure for a minute, then at its 21st for two.
      const victims = await accounts(t, 20);
      for (let i = 0; i < 20; i++) await attempt(t, victims[i]!, 'wrong', '203.0.113.4');
      t.clock.advance(MINUTE);
      assert.equal((await attempt(t, victims[0]!, 'wrong', '203.0.113.4')).statusCode, 429);
      // The account, from elsewhere: locked for a minute at its 5th failure.
      await fail(t, user.email, 5, '198.51.100.4');
      const refused = await attempt(t, user.email, PASSWORD, '203.0.113.4');
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '120');
      assert.equal(message(refused.body), 'Too many failed sign-in attempts. Try again in 2 minutes.');
      // From an address without a lock the account's own minute is what is left.
      assert.equal((await attempt(t, user.email, PASSWORD, '198.51.100.5')).headers['retry-after'], '60');
    });

    it('does not count attempts refused by the address lock against the account', async () => {
      const victims = await accounts(t, 20);
      for (let i = 0; i < 20; i++) await attempt(t, victims[i]!, 'wrong', '203.0.113.5');
      for (let i = 0; i < 6; i++) assert.equal((await attempt(t, user.email, PASSWORD, '203.0.113.5')).statusCode, 429);
      // Counted against the account, those six would have locked it everywhere.
      assert.equal((await attempt(t, user.email, PASSWORD, '198.51.100.5')).statusCode, 303);
    });

    it('does not lock the address when the attempt that reached twenty had the right password', async () => {
      const victims = await accounts(t, 19);
      for (let i = 0; i < 19; i++) await attempt(t, victims[i]!, 'wrong', '203.0.113.6');
      assert.equal((await attempt(t, user.email, PASSWORD, '203.0.113.6')).statusCode, 303);
      assert.equal((await attempt(t, user.email, PASSWORD, '203.0.113.6')).statusCode, 303);
    });

    it('keeps the address count across a successful sign-in', async () => {
      const victims = await accounts(t, 19);
      for (let i = 0; i < 19; i++) await attempt(t, victims[i]!, 'wrong', '203.0.113.8');
      assert.equal((await attempt(t, user.email, PASSWORD, '203.0.113.8')).statusCode, 303);
      assert.equal((await attempt(t, 'victim@example.test', 'wrong', '203.0.113.8')).statusCode, 429);
    });

    it('counts an IPv6 /64 as one address', async () => {
      const victims = await accounts(t, 20);
      for (let i = 0; i < 20; i++) await attempt(t, victims[i]!, 'wrong', `2001:db8:1:2::${(i + 1).toString(16)}`);
      assert.equal((await attempt(t, user.email, PASSWORD, '2001:db8:1:2:ffff::1')).statusCode, 429);
      assert.equal((await attempt(t, user.email, PASSWORD, '2001:db8:1:3::1')).statusCode, 303);
    });
  });
});
