// /portfolios: the list, the create and edit form, and the delete confirmation.
import type { Portfolio } from '../domain/records.ts';
import {
  type FieldErrors, checkboxField, errorSummary, selectField, textField,
} from './form-fields.ts';
import { html } from './html.ts';
import { type LayoutOptions, layout } from './layout.ts';
import { MAX_PORTFOLIO_NAME, type PortfolioFormValues, portfolioLabels as labels } from './portfolio-form.ts';
import {
  CG_DISCOUNTS, INTEREST_METHODS, SALE_ALLOCATION_METHODS, TRADER_CHOICES, countryName, countryOptions,
  currencyOptions, timeZoneSuggestions,
} from './portfolio-options.ts';

type SignedInAs = NonNullable<LayoutOptions['signedInAs']>;

export type PortfolioNotice = 'created' | 'updated' | 'deleted';

const NOTICES: Record<PortfolioNotice, string> = {
  created: 'Portfolio created.',
  updated: 'Changes saved.',
  deleted: 'Portfolio deleted.',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2019-07-01" → "1 Jul 2019"; anything unexpected is shown as stored. */
function longDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const month = match === null ? undefined : MONTHS[Number(match[2]) - 1];
  return match === null || month === undefined ? value : `${Number(match[3])} ${month} ${match[1]}`;
}

/** "06-30" → "30 Jun". */
function dayOfYear(value: string): string {
  const match = /^(\d{2})-(\d{2})$/.exec(value);
  const month = match === null ? undefined : MONTHS[Number(match[1]) - 1];
  return match === null || month === undefined ? value : `${Number(match[2])} ${month}`;
}

export interface PortfolioListModel {
  signedInAs: SignedInAs;
  portfolios: readonly Portfolio[];
  notice?: PortfolioNotice;
}

export function renderPortfolioList(model: PortfolioListModel): string {
  const rows = model.portfolios.map((portfolio) => html`
        <tr>
          <td data-label="Name"><a href="/portfolios/${portfolio.id}/edit">${portfolio.name}</a></td>
          <td data-label="Currency">${portfolio.currencyCode}</td>
          <td data-label="Country">${countryName(portfolio.countryCode)}</td>
          <td data-label="Financial year end">${dayOfYear(portfolio.financialYearEnd)}</td>
          <td data-label="Inception"><time datetime="${portfolio.inceptionDate}">${longDate(portfolio.inceptionDate)}</time></td>
          <td class="row-actions">
            <a href="/portfolios/${portfolio.id}/edit">Edit<span class="visually-hidden"> ${portfolio.name}</span></a>
            <a href="/portfolios/${portfolio.id}/delete" class="danger-link">Delete<span class="visually-hidden"> ${portfolio.name}</span></a>
          </td>
        </tr>`);
  const list = model.portfolios.length === 0
    ? html`<div class="empty">
        <p><strong>You have no portfolios yet.</strong></p>
        <p class="muted">A portfolio holds the investments you track together, in one currency and under one country's tax rules.</p>
        <p><a class="button primary" href="/portfolios/new">Create your first portfolio</a></p>
      </div>`
    : html`<table class="stack">
        <caption class="visually-hidden">Your portfolios</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Currency</th><th scope="col">Country</th><th scope="col">Financial year end</th><th scope="col">Inception</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${rows}</tbody>
      </table>`;
  return layout({ title: 'Portfolios', signedInAs: model.signedInAs }, html`
    <section class="card">
      <div class="heading-row">
        <h1>Portfolios</h1>
        ${model.portfolios.length === 0 ? '' : html`<a class="button primary" href="/portfolios/new">New portfolio</a>`}
      </div>
      ${model.notice === undefined ? '' : html`<p class="notice" role="status">${NOTICES[model.notice]}</p>`}
      ${list}
    </section>`);
}

export interface PortfolioFormModel {
  signedInAs: SignedInAs;
  /** Absent for a new portfolio. */
  portfolioId?: number;
  values: PortfolioFormValues;
  errors?: FieldErrors;
}

export function renderPortfolioForm(model: PortfolioFormModel): string {
  const { values } = model;
  const errors = model.errors ?? {};
  const editing = model.portfolioId !== undefined;
  const action = editing ? `/portfolios/${model.portfolioId}/edit` : '/portfolios/new';
  const title = editing ? `Edit ${values.name === '' ? 'portfolio' : values.name}` : 'New portfolio';
  return layout({ title, signedInAs: model.signedInAs }, html`
    <section class="card">
      <h1>${title}</h1>
      ${errorSummary(errors, labels)}
      <form method="post" action="${action}" novalidate>
        <input type="hidden" name="csrf_token" value="${model.signedInAs.csrfToken}">
        <fieldset>
          <legend>Portfolio</legend>
          ${textField({ name: 'name', label: labels.name, value: values.name, maxlength: MAX_PORTFOLIO_NAME, hint: `Up to ${MAX_PORTFOLIO_NAME} characters.`, error: errors.name, autofocus: !editing && Object.keys(errors).length === 0 })}
          ${selectField({ name: 'currency_code', label: labels.currency_code, value: values.currency_code, options: currencyOptions(), hint: 'Values and reports are shown in this currency.', error: errors.currency_code })}
          ${selectField({ name: 'country_code', label: labels.country_code, value: values.country_code, options: countryOptions(), hint: 'Whose tax rules apply.', error: errors.country_code })}
        </fieldset>
        <fieldset>
          <legend>Dates</legend>
          ${textField({ name: 'financial_year_end', label: labels.financial_year_end, value: values.financial_year_end, maxlength: 5, hint: 'Month and day, as MM-DD: 06-30 in Australia, 03-31 in New Zealand, 12-31 in the United States.', error: errors.financial_year_end })}
          ${textField({ name: 'inception_date', label: labels.inception_date, type: 'date', value: values.inception_date, hint: 'When you started tracking, as YYYY-MM-DD. Not in the future.', error: errors.inception_date })}
          ${textField({ name: 'tz_name', label: labels.tz_name, value: values.tz_name, list: 'time-zones', autocomplete: 'off', hint: 'An IANA time zone name, such as Australia/Sydney or UTC.', error: errors.tz_name })}
          <datalist id="time-zones">${timeZoneSuggestions().map((zone) => html`<option value="${zone}">`)}</datalist>
        </fieldset>
        <fieldset>
          <legend>Tax and accounting</legend>
          ${selectField({ name: 'default_sale_allocation_method', label: labels.default_sale_allocation_method, value: values.default_sale_allocation_method, options: SALE_ALLOCATION_METHODS, hint: 'Which parcels a sale is taken from.', error: errors.default_sale_allocation_method })}
          ${selectField({ name: 'cg_discount', label: labels.cg_discount, value: values.cg_discount, options: CG_DISCOUNTS, error: errors.cg_discount })}
          ${selectField({ name: 'trader', label: labels.trader, value: values.trader, options: TRADER_CHOICES, error: errors.trader })}
          ${selectField({ name: 'interest_method', label: labels.interest_method, value: values.interest_method, options: INTEREST_METHODS, error: errors.interest_method })}
          ${checkboxField({ name: 'disable_automatic_transactions', label: labels.disable_automatic_transactions, checked: values.disable_automatic_transactions === 'on', error: errors.disable_automatic_transactions })}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">${editing ? 'Save changes' : 'Create portfolio'}</button>
          <a class="button" href="/portfolios">Cancel</a>
        </div>
      </form>
    </section>`);
}

export function renderDeletePortfolio(model: { signedInAs: SignedInAs; portfolio: Portfolio }): string {
  const { portfolio } = model;
  return layout({ title: `Delete ${portfolio.name}`, signedInAs: model.signedInAs }, html`
    <section class="card narrow">
      <h1>Delete &ldquo;${portfolio.name}&rdquo;?</h1>
      <p>The portfolio and everything recorded in it will be removed. Applications you connected will no longer see it. This cannot be undone.</p>
      <form method="post" action="/portfolios/${portfolio.id}/delete">
        <input type="hidden" name="csrf_token" value="${model.signedInAs.csrfToken}">
        <div class="actions">
          <button type="submit" class="danger">Delete portfolio</button>
          <a class="button" href="/portfolios">Keep it</a>
        </div>
      </form>
    </section>`);
}
