// The portfolio form: which DESIGN §5 fields a person sets on the page, how the
// submitted strings are checked, and the field values an existing portfolio shows.
// Pure: the caller passes the current time.
import type { PortfolioFields } from '../domain/records.ts';
import type { FieldErrors } from './form-fields.ts';
import {
  CG_DISCOUNTS, COUNTRY_CODES, CURRENCY_CODES, INTEREST_METHODS, SALE_ALLOCATION_METHODS, TRADER_CHOICES,
} from './portfolio-options.ts';

export const MAX_PORTFOLIO_NAME = 100;
const EARLIEST_INCEPTION = '1900-01-01';

/** Form field names are the Sharesight v2 field names. */
export const portfolioLabels = {
  name: 'Name',
  currency_code: 'Currency',
  country_code: 'Country',
  financial_year_end: 'Financial year end',
  inception_date: 'Inception date',
  tz_name: 'Time zone',
  default_sale_allocation_method: 'Sale allocation method',
  cg_discount: 'Capital gains discount',
  trader: 'Trader status',
  interest_method: 'Interest method',
  disable_automatic_transactions: 'Turn off automatic transactions (dividends, splits and other corporate actions)',
} as const;

export type PortfolioFormField = keyof typeof portfolioLabels;
/** The form as strings, exactly as shown or submitted ('on' or '' for the checkbox). */
export type PortfolioFormValues = Record<PortfolioFormField, string>;

/** What the form sets; everything else in PortfolioFields keeps its default or current value. */
export type PortfolioFormChanges = Pick<PortfolioFields,
  'name' | 'currencyCode' | 'countryCode' | 'financialYearEnd' | 'inceptionDate' | 'tzName'
  | 'defaultSaleAllocationMethod' | 'cgDiscount' | 'trader' | 'interestMethod' | 'disableAutomaticTransactions'>;

export type PortfolioFormResult =
  | { ok: true; changes: PortfolioFormChanges }
  | { ok: false; errors: FieldErrors; values: PortfolioFormValues };

export function formValuesOf(fields: PortfolioFields): PortfolioFormValues {
  return {
    name: fields.name,
    currency_code: fields.currencyCode,
    country_code: fields.countryCode,
    financial_year_end: fields.financialYearEnd,
    inception_date: fields.inceptionDate,
    tz_name: fields.tzName,
    default_sale_allocation_method: fields.defaultSaleAllocationMethod,
    cg_discount: fields.cgDiscount ?? '',
    trader: fields.trader === null ? '' : String(fields.trader),
    interest_method: fields.interestMethod,
    disable_automatic_transactions: fields.disableAutomaticTransactions ? 'on' : '',
  };
}

/** The IANA name as the runtime spells it ("australia/sydney" → "Australia/Sydney"), or undefined. */
export function canonicalTimeZone(name: string): string | undefined {
  if (name === '' || name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Today's date (YYYY-MM-DD) in a time zone. */
export function dateIn(timeZone: string, now: number): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function checkYearEnd(value: string): string | undefined {
  const match = /^(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return 'Enter the month and day as MM-DD, like 06-30.';
  const [month, day] = [Number(match[1]), Number(match[2])];
  if (month < 1 || month > 12) return 'The month must be 01 to 12.';
  if (month === 2 && day === 29) return 'Not every year has 29 February; use 02-28.';
  if (day < 1 || day > DAYS_IN_MONTH[month - 1]!) return `That month has ${DAYS_IN_MONTH[month - 1]} days.`;
  return undefined;
}

function isRealDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function checkInception(value: string, today: string): string | undefined {
  if (value === '') return 'Enter the date the portfolio started.';
  if (!isRealDate(value)) return 'Enter a real date as YYYY-MM-DD, like 2019-07-01.';
  if (value < EARLIEST_INCEPTION) return 'Enter a date in 1900 or later.';
  if (value > today) return 'The inception date cannot be in the future.';
  return undefined;
}

const oneOf = (options: readonly { value: string }[], value: string) => options.some((option) => option.value === value);

export function validatePortfolioForm(params: Record<string, string | undefined>, now: number): PortfolioFormResult {
  const text = (name: PortfolioFormField) => (params[name] ?? '').trim();
  const values: PortfolioFormValues = {
    name: text('name'),
    currency_code: text('currency_code').toUpperCase(),
    country_code: text('country_code').toUpperCase(),
    financial_year_end: text('financial_year_end'),
    inception_date: text('inception_date'),
    tz_name: text('tz_name'),
    default_sale_allocation_method: text('default_sale_allocation_method'),
    cg_discount: text('cg_discount'),
    trader: text('trader'),
    interest_method: text('interest_method'),
    // An unticked checkbox is not sent at all.
    disable_automatic_transactions: params.disable_automatic_transactions === undefined ? '' : 'on',
  };
  const errors: FieldErrors = {};
  const nameLength = [...values.name].length;
  if (nameLength === 0) errors.name = 'Enter a name for the portfolio.';
  else if (nameLength > MAX_PORTFOLIO_NAME) errors.name = `Use at most ${MAX_PORTFOLIO_NAME} characters (this has ${nameLength}).`;
  else if (/[\u0000-\u001f\u007f]/.test(values.name)) errors.name = 'Use letters, digits, spaces and punctuation only.';
  if (!CURRENCY_CODES.includes(values.currency_code)) errors.currency_code = 'Choose a currency from the list (an ISO 4217 code such as AUD).';
  if (!COUNTRY_CODES.includes(values.country_code)) errors.country_code = 'Choose a country from the list (an ISO 3166 code such as AU).';
  const yearEnd = checkYearEnd(values.financial_year_end);
  if (yearEnd !== undefined) errors.financial_year_end = yearEnd;
  const tzName = canonicalTimeZone(values.tz_name);
  // "Not in the future" as the portfolio's own calendar sees today.
  const inception = checkInception(values.inception_date, dateIn(tzName ?? 'UTC', now));
  if (inception !== undefined) errors.inception_date = inception;
  if (tzName === undefined) errors.tz_name = 'Enter a time zone name such as Australia/Sydney or UTC.';
  if (!oneOf(SALE_ALLOCATION_METHODS, values.default_sale_allocation_method)) errors.default_sale_allocation_method = 'Choose a sale allocation method from the list.';
  if (!oneOf(CG_DISCOUNTS, values.cg_discount)) errors.cg_discount = 'Choose a capital gains discount from the list.';
  if (!oneOf(TRADER_CHOICES, values.trader)) errors.trader = 'Choose a trader status from the list.';
  if (!oneOf(INTEREST_METHODS, values.interest_method)) errors.interest_method = 'Choose an interest method from the list.';

  if (Object.keys(errors).length > 0 || tzName === undefined) return { ok: false, errors, values };
  return {
    ok: true,
    changes: {
      name: values.name,
      currencyCode: values.currency_code,
      countryCode: values.country_code,
      financialYearEnd: values.financial_year_end,
      inceptionDate: values.inception_date,
      tzName,
      defaultSaleAllocationMethod: values.default_sale_allocation_method,
      cgDiscount: values.cg_discount === '' ? null : values.cg_discount,
      trader: values.trader === '' ? null : values.trader === 'true',
      interestMethod: values.interest_method,
      disableAutomaticTransactions: values.disable_automatic_transactions === 'on',
    },
  };
}
