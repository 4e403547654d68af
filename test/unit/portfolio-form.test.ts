import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { portfolioFields } from '../../src/demo/portfolio-fields.ts';
import {
  canonicalTimeZone, dateIn, formValuesOf, validatePortfolioForm,
} from '../../src/web/portfolio-form.ts';

// 2026-01-15 13:00 UTC: already 16 January in Auckland, still the 15th in New York.
const NOW = Date.UTC(2026, 0, 15, 13, 0, 0);

const valid = {
  name: 'Retirement', currency_code: 'AUD', country_code: 'AU', financial_year_end: '06-30',
  inception_date: '2019-07-01', tz_name: 'Australia/Sydney', default_sale_allocation_method: 'fifo',
  cg_discount: '50%', trader: '', interest_method: 'simple',
};

function errorsFor(change: Record<string, string | undefined>) {
  const result = validatePortfolioForm({ ...valid, ...change }, NOW);
  return result.ok ? {} : result.errors;
}

describe('portfolio form', () => {
  it('turns a valid form into the fields it sets', () => {
    const result = validatePortfolioForm({ ...valid, name: '  Retirement  ', disable_automatic_transactions: 'on', trader: 'false' }, NOW);
    assert.deepEqual(result, {
      ok: true,
      changes: {
        name: 'Retirement', currencyCode: 'AUD', countryCode: 'AU', financialYearEnd: '06-30', inceptionDate: '2019-07-01',
        tzName: 'Australia/Sydney', defaultSaleAllocationMethod: 'fifo', cgDiscount: '50%', trader: false,
        interestMethod: 'simple', disableAutomaticTransactions: true,
      },
    });
  });

  it('reads empty choices as null and a missing checkbox as false', () => {
    const result = validatePortfolioForm({ ...valid, cg_discount: '', trader: '' }, NOW);
    assert.ok(result.ok);
    assert.equal(result.changes.cgDiscount, null);
    assert.equal(result.changes.trader, null);
    assert.equal(result.changes.disableAutomaticTransactions, false);
  });

  it('round-trips the values of an existing portfolio', () => {
    const fields = portfolioFields({ name: 'Kiwi', countryCode: 'NZ', now: NOW }, { trader: true, disableAutomaticTransactions: true });
    const result = validatePortfolioForm(formValuesOf(fields), NOW);
    assert.ok(result.ok);
    for (const [key, value] of Object.entries(result.changes)) assert.deepEqual(value, fields[key as keyof typeof fields], key);
  });

  it('wants a name of 1 to 100 characters', () => {
    assert.match(errorsFor({ name: ' ' }).name!, /Enter a name/);
    assert.match(errorsFor({ name: 'x'.repeat(101) }).name!, /at most 100 characters \(this has 101\)/);
    assert.deepEqual(errorsFor({ name: '€'.repeat(100) }), {});
    assert.match(errorsFor({ name: 'tab\there' }).name!, /letters/);
  });

  it('accepts only listed ISO 4217 currencies and ISO 3166 countries, in any case', () => {
    assert.deepEqual(errorsFor({ currency_code: 'nzd', country_code: 'nz' }), {});
    assert.ok(errorsFor({ currency_code: 'ABC' }).currency_code);
    assert.ok(errorsFor({ currency_code: 'AU' }).currency_code);
    assert.ok(errorsFor({ currency_code: undefined }).currency_code);
    assert.ok(errorsFor({ country_code: 'UK' }).country_code, 'UK is not an ISO 3166 code (GB is)');
    assert.ok(errorsFor({ country_code: 'EU' }).country_code);
  });

  it('wants the financial year end as a day every year has', () => {
    for (const good of ['06-30', '12-31', '02-28', '01-01']) assert.deepEqual(errorsFor({ financial_year_end: good }), {}, good);
    assert.match(errorsFor({ financial_year_end: '6-30' }).financial_year_end!, /MM-DD/);
    assert.match(errorsFor({ financial_year_end: '13-01' }).financial_year_end!, /01 to 12/);
    assert.match(errorsFor({ financial_year_end: '06-31' }).financial_year_end!, /30 days/);
    assert.match(errorsFor({ financial_year_end: '02-29' }).financial_year_end!, /29 February/);
    assert.match(errorsFor({ financial_year_end: '00-10' }).financial_year_end!, /01 to 12/);
  });

  it('wants a real inception date, not before 1900', () => {
    assert.match(errorsFor({ inception_date: '' }).inception_date!, /Enter the date/);
    assert.match(errorsFor({ inception_date: '2019-02-30' }).inception_date!, /real date/);
    assert.match(errorsFor({ inception_date: '01/07/2019' }).inception_date!, /YYYY-MM-DD/);
    assert.match(errorsFor({ inception_date: '1899-12-31' }).inception_date!, /1900/);
    assert.deepEqual(errorsFor({ inception_date: '2024-02-29' }), {});
  });

  it('refuses an inception date in the future, by the portfolio\'s own calendar', () => {
    assert.deepEqual(errorsFor({ inception_date: '2026-01-16', tz_name: 'Pacific/Auckland' }), {});
    assert.match(errorsFor({ inception_date: '2026-01-16', tz_name: 'America/New_York' }).inception_date!, /future/);
    assert.deepEqual(errorsFor({ inception_date: '2026-01-15', tz_name: 'America/New_York' }), {});
    assert.match(errorsFor({ inception_date: '2026-01-17', tz_name: 'Pacific/Auckland' }).inception_date!, /future/);
  });

  it('accepts IANA time zones, stored as the runtime spells them', () => {
    const result = validatePortfolioForm({ ...valid, tz_name: 'europe/london' }, NOW);
    assert.ok(result.ok);
    assert.equal(result.changes.tzName, 'Europe/London');
    assert.deepEqual(errorsFor({ tz_name: 'UTC' }), {});
    for (const bad of ['Mars/Olympus_Mons', '', '+05:00', 'x'.repeat(65), '../etc']) assert.ok(errorsFor({ tz_name: bad }).tz_name, bad);
  });

  it('accepts only the listed methods and choices', () => {
    assert.ok(errorsFor({ default_sale_allocation_method: 'random' }).default_sale_allocation_method);
    assert.ok(errorsFor({ interest_method: 'magic' }).interest_method);
    assert.ok(errorsFor({ cg_discount: '99%' }).cg_discount);
    assert.ok(errorsFor({ trader: 'maybe' }).trader);
  });

  it('reports every problem in form order and keeps what was typed', () => {
    const result = validatePortfolioForm({ ...valid, name: '', inception_date: 'soon', tz_name: 'Nowhere', interest_method: 'x', disable_automatic_transactions: 'on' }, NOW);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(Object.keys(result.errors), ['name', 'inception_date', 'tz_name', 'interest_method']);
    assert.equal(result.values.inception_date, 'soon');
    assert.equal(result.values.tz_name, 'Nowhere');
    assert.equal(result.values.disable_automatic_transactions, 'on');
  });

  it('helpers: canonical zone names and today in a zone', () => {
    assert.equal(canonicalTimeZone('asia/tokyo'), 'Asia/Tokyo');
    assert.equal(canonicalTimeZone('Not/AZone'), undefined);
    assert.equal(dateIn('Pacific/Auckland', NOW), '2026-01-16');
    assert.equal(dateIn('UTC', NOW), '2026-01-15');
  });
});
