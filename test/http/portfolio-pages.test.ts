// The /portfolios pages: list, create, edit, delete; signed-in only, CSRF on every
// form, 303 after every successful POST, someone else's portfolio is a 404.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { User } from '../../src/domain/records.ts';
import {
  type TestApp, cookieHeader, createPortfolio, createTestApp, createUser, form, hiddenField, signIn,
} from '../support/app.ts';

type Jar = Record<string, string>;

const valid = {
  name: 'Retirement', currency_code: 'NZD', country_code: 'NZ', financial_year_end: '03-31',
  inception_date: '2019-04-01', tz_name: 'Pacific/Auckland', default_sale_allocation_method: 'fifo',
  cg_discount: '', trader: 'false', interest_method: 'compound', disable_automatic_transactions: 'on',
};

const get = (t: TestApp, url: string, jar: Jar = {}) => t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } });

function post(t: TestApp, url: string, fields: Record<string, string>, jar: Jar) {
  return t.app.inject({ method: 'POST', url, ...form(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) } });
}

/** Opens the page with the form and submits it with the page's CSRF token. */
async function submit(t: TestApp, jar: Jar, pageUrl: string, action: string, fields: Record<string, string>) {
  const page = await get(t, pageUrl, jar);
  assert.equal(page.statusCode, 200, `GET ${pageUrl}`);
  return post(t, action, { csrf_token: hiddenField(page.body, 'csrf_token'), ...fields }, jar);
}

function fieldError(html: string, name: string): string | undefined {
  const control = new RegExp(`<(?:input|select) id="field-${name}"[^>]*>`).exec(html)?.[0] ?? '';
  if (!/aria-invalid="true"/.test(control) || !control.includes(`field-${name}-error`)) return undefined;
  return new RegExp(`id="field-${name}-error"><span class="visually-hidden">Error: </span>([^<]*)</p>`).exec(html)?.[1];
}

const inputValue = (html: string, name: string) => new RegExp(`<input id="field-${name}" name="${name}" type="[a-z]+" value="([^"]*)"`).exec(html)?.[1];
const selected = (html: string, name: string) =>
  new RegExp(`<select id="field-${name}"[^>]*>[\\s\\S]*?<option value="([^"]*)" selected>`).exec(html)?.[1];

describe('portfolio pages', () => {
  let t: TestApp;
  let user: User;
  let jar: Jar;
  beforeEach(async () => {
    t = await createTestApp();
    user = await createUser(t);
    jar = await signIn(t, user);
  });
  afterEach(async () => { await t.close(); });

  describe('signed out', () => {
    for (const url of ['/portfolios', '/portfolios/new', '/portfolios/1', '/portfolios/1/edit', '/portfolios/1/delete']) {
      it(`GET ${url} redirects to sign-in and back`, async () => {
        const response = await get(t, url);
        assert.equal(response.statusCode, 302);
        assert.equal(response.headers.location, `/login?${new URLSearchParams({ return_to: url })}`);
      });
    }

    it('POST redirects to sign-in and writes nothing', async () => {
      const portfolio = await createPortfolio(t, user, 'Kept');
      for (const url of ['/portfolios/new', `/portfolios/${portfolio.id}/edit`, `/portfolios/${portfolio.id}/delete`]) {
        const response = await post(t, url, valid, {});
        assert.equal(response.statusCode, 303, url);
        assert.match(response.headers.location as string, /^\/login\?/);
      }
      assert.deepEqual((await t.storage.portfolios.listPortfoliosOwnedBy(user.id)).map((p) => p.name), ['Kept']);
    });
  });

  describe('the list', () => {
    it('shows an empty state that leads to creating one', async () => {
      const page = await get(t, '/portfolios', jar);
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.match(page.body, /You have no portfolios yet/);
      assert.match(page.body, /href="\/portfolios\/new"/);
      assert.doesNotMatch(page.body, /<table/);
    });

    it('lists only my portfolios with name, currency, country, financial year end and inception date', async () => {
      const mine = await createPortfolio(t, user, 'Growth');
      const other = await createUser(t, 'Someone Else');
      await createPortfolio(t, other, 'Not Mine');
      const page = await get(t, '/portfolios', jar);
      assert.match(page.body, new RegExp(`<a href="/portfolios/${mine.id}/edit">Growth</a>`));
      assert.match(page.body, /<td data-label="Currency">AUD<\/td>/);
      assert.match(page.body, /<td data-label="Country">Australia<\/td>/);
      assert.match(page.body, /<td data-label="Financial year end">30 Jun<\/td>/);
      assert.match(page.body, /<time datetime="2026-01-15">15 Jan 2026<\/time>/);
      assert.doesNotMatch(page.body, /Not Mine/);
    });

    it('escapes portfolio names', async () => {
      await createPortfolio(t, user, '<script>alert(1)</script>');
      const page = await get(t, '/portfolios', jar);
      assert.doesNotMatch(page.body, /<script>alert/);
      assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    });

    it('shows the navigation and a sign-out form for the signed-in person', async () => {
      const page = await get(t, '/portfolios', jar);
      assert.match(page.body, /<nav aria-label="Account">/);
      assert.match(page.body, /action="\/logout"/);
      assert.equal(page.headers['cache-control'], 'no-store');
    });

    it('shows only the notices it knows', async () => {
      assert.match((await get(t, '/portfolios?notice=created', jar)).body, /role="status">Portfolio created\./);
      const forged = await get(t, '/portfolios?notice=%3Cb%3Ehi', jar);
      assert.doesNotMatch(forged.body, /role="status"|<b>hi/);
    });
  });

  describe('creating', () => {
    it('offers a form with defaults, a label for every field, and the CSRF token', async () => {
      const page = await get(t, '/portfolios/new', jar);
      assert.equal(page.statusCode, 200);
      for (const [name, value] of [['financial_year_end', '06-30'], ['inception_date', '2026-01-15'], ['tz_name', 'Australia/Sydney'], ['name', '']] as const) {
        assert.equal(inputValue(page.body, name), value, name);
      }
      assert.equal(selected(page.body, 'currency_code'), 'AUD');
      assert.equal(selected(page.body, 'country_code'), 'AU');
      assert.equal(selected(page.body, 'cg_discount'), '50%');
      const ids = [...page.body.matchAll(/<(?:input|select) id="([^"]+)"/g)].map((m) => m[1]);
      assert.ok(ids.length >= 11);
      for (const id of ids) assert.match(page.body, new RegExp(`<label[^>]* for="${id}"`), `label for ${id}`);
      assert.ok(hiddenField(page.body, 'csrf_token').length > 20);
    });

    it('creates the portfolio with every field and answers 303 to the list', async () => {
      const response = await submit(t, jar, '/portfolios/new', '/portfolios/new', valid);
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/portfolios?notice=created');
      const [created] = await t.storage.portfolios.listPortfoliosOwnedBy(user.id);
      assert.ok(created);
      assert.equal(created.name, 'Retirement');
      assert.equal(created.currencyCode, 'NZD');
      assert.equal(created.countryCode, 'NZ');
      assert.equal(created.financialYearEnd, '03-31');
      assert.equal(created.inceptionDate, '2019-04-01');
      assert.equal(created.tzName, 'Pacific/Auckland');
      assert.equal(created.cgDiscount, null);
      assert.equal(created.trader, false);
      assert.equal(created.interestMethod, 'compound');
      assert.equal(created.disableAutomaticTransactions, true);
      assert.equal(created.defaultSaleAllocationMethod, 'fifo');
      assert.equal(created.brokerEmailApiEnabled, false);
      assert.match((await get(t, response.headers.location as string, jar)).body, /Retirement/);
    });

    it('shows each error next to its field, keeps the values, and writes nothing', async () => {
      const response = await submit(t, jar, '/portfolios/new', '/portfolios/new', {
        ...valid, name: '', currency_code: 'XYZ', financial_year_end: '02-30', inception_date: '2027-01-01', tz_name: 'Mars/Base',
      });
      assert.equal(response.statusCode, 400);
      assert.match(fieldError(response.body, 'name') ?? '', /Enter a name/);
      assert.match(fieldError(response.body, 'currency_code') ?? '', /currency/);
      assert.match(fieldError(response.body, 'financial_year_end') ?? '', /29 days|28|February/);
      assert.match(fieldError(response.body, 'inception_date') ?? '', /future/);
      assert.match(fieldError(response.body, 'tz_name') ?? '', /time zone/);
      assert.equal(fieldError(response.body, 'country_code'), undefined);
      assert.equal(inputValue(response.body, 'tz_name'), 'Mars/Base');
      assert.equal(inputValue(response.body, 'inception_date'), '2027-01-01');
      assert.equal(selected(response.body, 'country_code'), 'NZ');
      assert.match(response.body, /id="error-summary"/);
      assert.deepEqual(await t.storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    });

    it('refuses an inception date later than today by the injected clock, in the portfolio\'s time zone', async () => {
      // The clock reads 09:00 UTC on 15 January: 22:00 in Auckland, where the 16th starts at 11:00 UTC.
      const sixteenth = { ...valid, tz_name: 'Pacific/Auckland', inception_date: '2026-01-16' };
      assert.equal((await submit(t, jar, '/portfolios/new', '/portfolios/new', sixteenth)).statusCode, 400);
      t.clock.advance(90 * 60_000);
      assert.equal((await submit(t, jar, '/portfolios/new', '/portfolios/new', sixteenth)).statusCode, 400);
      t.clock.advance(60 * 60_000);
      assert.equal((await submit(t, jar, '/portfolios/new', '/portfolios/new', sixteenth)).statusCode, 303);
    });

    it('escapes what it shows back', async () => {
      const response = await submit(t, jar, '/portfolios/new', '/portfolios/new', { ...valid, name: '<script>alert(1)</script>', tz_name: '"><img src=x onerror=alert(1)>' });
      assert.equal(response.statusCode, 400);
      assert.doesNotMatch(response.body, /<script>alert|<img src=x/);
      assert.match(response.body, /value="&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
    });

    it('stores a hostile name as text and lists it escaped', async () => {
      assert.equal((await submit(t, jar, '/portfolios/new', '/portfolios/new', { ...valid, name: '<script>alert(1)</script>' })).statusCode, 303);
      const page = await get(t, '/portfolios', jar);
      assert.doesNotMatch(page.body, /<script>alert/);
      assert.match(page.body, />&lt;script&gt;alert\(1\)&lt;\/script&gt;</);
    });

    it('refuses a submission without or with a wrong CSRF token and writes nothing', async () => {
      for (const token of [undefined, 'x'.repeat(43)]) {
        const response = await post(t, '/portfolios/new', token === undefined ? valid : { ...valid, csrf_token: token }, jar);
        assert.ok(response.statusCode >= 400 && response.statusCode < 500, String(response.statusCode));
        assert.match(String(response.headers['content-type']), /^text\/html/);
      }
      assert.deepEqual(await t.storage.portfolios.listPortfoliosOwnedBy(user.id), []);
    });
  });

  describe('editing', () => {
    it('shows the current values and saves changes, keeping fields the form does not show', async () => {
      const portfolio = await t.storage.portfolios.createPortfolio(user.id, {
        ...(await createPortfolio(t, user, 'Before')), brokerEmailKey: 'key-123', buyTradeSettlementDelay: 2,
      }, t.clock.now());
      const page = await get(t, `/portfolios/${portfolio.id}/edit`, jar);
      assert.equal(page.statusCode, 200);
      assert.equal(inputValue(page.body, 'name'), 'Before');
      assert.equal(selected(page.body, 'currency_code'), 'AUD');
      t.clock.advance(60_000);
      const response = await post(t, `/portfolios/${portfolio.id}/edit`, { csrf_token: hiddenField(page.body, 'csrf_token'), ...valid, name: 'After' }, jar);
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/portfolios?notice=updated');
      const saved = await t.storage.portfolios.findPortfolioOwnedBy(portfolio.id, user.id);
      assert.equal(saved?.name, 'After');
      assert.equal(saved?.currencyCode, 'NZD');
      assert.equal(saved?.brokerEmailKey, 'key-123');
      assert.equal(saved?.buyTradeSettlementDelay, 2);
      assert.equal(saved?.updatedAt, t.clock.now());
    });

    it('shows errors and changes nothing', async () => {
      const portfolio = await createPortfolio(t, user, 'Unchanged');
      const response = await submit(t, jar, `/portfolios/${portfolio.id}/edit`, `/portfolios/${portfolio.id}/edit`, { ...valid, name: 'x'.repeat(101) });
      assert.equal(response.statusCode, 400);
      assert.match(fieldError(response.body, 'name') ?? '', /at most 100/);
      assert.match(response.body, new RegExp(`action="/portfolios/${portfolio.id}/edit"`));
      assert.equal((await t.storage.portfolios.findPortfolioOwnedBy(portfolio.id, user.id))?.name, 'Unchanged');
    });

    it('refuses a change without the CSRF token', async () => {
      const portfolio = await createPortfolio(t, user, 'Unchanged');
      const response = await post(t, `/portfolios/${portfolio.id}/edit`, { ...valid, name: 'Changed' }, jar);
      assert.ok(response.statusCode >= 400 && response.statusCode < 500);
      assert.equal((await t.storage.portfolios.findPortfolioOwnedBy(portfolio.id, user.id))?.name, 'Unchanged');
    });
  });

  describe('deleting', () => {
    it('asks for confirmation, then deletes and answers 303 to the list', async () => {
      const portfolio = await createPortfolio(t, user, 'Old <b>stuff</b>');
      const page = await get(t, `/portfolios/${portfolio.id}/delete`, jar);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Delete &ldquo;Old &lt;b&gt;stuff&lt;\/b&gt;&rdquo;\?/);
      assert.match(page.body, new RegExp(`<form method="post" action="/portfolios/${portfolio.id}/delete">`));
      assert.ok(await t.storage.portfolios.findPortfolioOwnedBy(portfolio.id, user.id), 'GET deletes nothing');
      const response = await post(t, `/portfolios/${portfolio.id}/delete`, { csrf_token: hiddenField(page.body, 'csrf_token') }, jar);
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/portfolios?notice=deleted');
      assert.equal(await t.storage.portfolios.findPortfolioOwnedBy(portfolio.id, user.id), undefined);
    });

    it('refuses without the CSRF token and keeps the portfolio', async () => {
      const portfolio = await createPortfolio(t, user, 'Kept');
      const response = await post(t, `/portfolios/${portfolio.id}/delete`, {}, jar);
      assert.ok(response.statusCode >= 400 && response.statusCode < 500);
      assert.ok(await t.storage.portfolios.findPortfolioOwnedBy(portfolio.id, user.id));
    });

    it('answers 404 for a portfolio already deleted', async () => {
      const portfolio = await createPortfolio(t, user, 'Gone');
      const page = await get(t, `/portfolios/${portfolio.id}/delete`, jar);
      const token = hiddenField(page.body, 'csrf_token');
      assert.equal((await post(t, `/portfolios/${portfolio.id}/delete`, { csrf_token: token }, jar)).statusCode, 303);
      assert.equal((await post(t, `/portfolios/${portfolio.id}/delete`, { csrf_token: token }, jar)).statusCode, 404);
    });
  });

  describe("someone else's portfolio", () => {
    it('is a 404 page for every page and form, and nothing changes', async () => {
      const owner = await createUser(t, 'Owner');
      const theirs = await createPortfolio(t, owner, 'Theirs');
      const token = hiddenField((await get(t, '/portfolios/new', jar)).body, 'csrf_token');
      for (const url of [`/portfolios/${theirs.id}/edit`, `/portfolios/${theirs.id}/delete`]) {
        const page = await get(t, url, jar);
        assert.equal(page.statusCode, 404, `GET ${url}`);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        assert.doesNotMatch(page.body, /Theirs/);
        assert.equal((await post(t, url, { ...valid, name: 'Mine now', csrf_token: token }, jar)).statusCode, 404, `POST ${url}`);
      }
      assert.deepEqual(await t.storage.portfolios.findPortfolioOwnedBy(theirs.id, owner.id), theirs);
    });

    it('looks the same as one that does not exist, and odd ids are 404 too', async () => {
      for (const id of ['999999', '0', 'abc', '1e3', '-1', '99999999999999999999']) {
        assert.equal((await get(t, `/portfolios/${id}/edit`, jar)).statusCode, 404, id);
      }
    });
  });

  it("the portfolio's own address, which API records link to, leads its owner to its page and others to 404", async () => {
    const portfolio = await createPortfolio(t, user, 'Linked');
    const own = await get(t, `/portfolios/${portfolio.id}`, jar);
    assert.equal(own.statusCode, 302);
    assert.equal(own.headers.location, `/portfolios/${portfolio.id}/edit`);
    const stranger = await signIn(t, await createUser(t, 'Stranger'));
    assert.equal((await get(t, `/portfolios/${portfolio.id}`, stranger)).statusCode, 404);
  });

  it('answers other methods with 405', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/portfolios/1/delete', headers: { cookie: cookieHeader(jar) } });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET, POST, HEAD');
  });
});
