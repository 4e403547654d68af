// Labelled form fields with their hint and error tied to the input
// (aria-describedby, aria-invalid), and the summary of errors above a form.
import { type SafeHtml, html } from './html.ts';

/** Messages by field name, for a form that came back with errors. */
export type FieldErrors = Record<string, string>;

export interface FieldOptions {
  name: string;
  label: string;
  error?: string | undefined;
  hint?: string;
}

export interface TextFieldOptions extends FieldOptions {
  value: string;
  type?: 'text' | 'email' | 'password' | 'date';
  autocomplete?: string;
  maxlength?: number;
  inputmode?: 'numeric' | 'decimal';
  placeholder?: string;
  /** Id of a <datalist> offering suggestions. */
  list?: string;
  autofocus?: boolean;
}

export interface SelectOption {
  value: string;
  label: string;
}

export interface SelectFieldOptions extends FieldOptions {
  value: string;
  options: readonly SelectOption[];
}

export const fieldId = (name: string) => `field-${name}`;

/** Hint, then error, between label and input, as screen readers and sighted users meet them. */
function described(options: FieldOptions) {
  const id = fieldId(options.name);
  const ids = [options.hint === undefined ? '' : `${id}-hint`, options.error === undefined ? '' : `${id}-error`].filter((x) => x !== '');
  return {
    notes: html`${options.hint === undefined ? '' : html`<p class="hint" id="${id}-hint">${options.hint}</p>`}${
      options.error === undefined ? '' : html`<p class="field-error" id="${id}-error"><span class="visually-hidden">Error: </span>${options.error}</p>`}`,
    attributes: html`${ids.length === 0 ? '' : html` aria-describedby="${ids.join(' ')}"`}${options.error === undefined ? '' : html` aria-invalid="true"`}`,
  };
}

export function textField(options: TextFieldOptions): SafeHtml {
  const id = fieldId(options.name);
  const { notes, attributes } = described(options);
  return html`<div class="field">
    <label for="${id}">${options.label}</label>${notes}
    <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}" value="${options.type === 'password' ? '' : options.value}"${
      options.autocomplete === undefined ? '' : html` autocomplete="${options.autocomplete}"`}${
      options.maxlength === undefined ? '' : html` maxlength="${options.maxlength}"`}${
      options.inputmode === undefined ? '' : html` inputmode="${options.inputmode}"`}${
      options.placeholder === undefined ? '' : html` placeholder="${options.placeholder}"`}${
      options.list === undefined ? '' : html` list="${options.list}"`}${
      options.autofocus ? html` autofocus` : ''}${attributes}>
  </div>`;
}

export function selectField(options: SelectFieldOptions): SafeHtml {
  const id = fieldId(options.name);
  const { notes, attributes } = described(options);
  return html`<div class="field">
    <label for="${id}">${options.label}</label>${notes}
    <select id="${id}" name="${options.name}"${attributes}>
      ${options.options.map((option) => html`<option value="${option.value}"${option.value === options.value ? html` selected` : ''}>${option.label}</option>`)}
    </select>
  </div>`;
}

export function checkboxField(options: FieldOptions & { checked: boolean }): SafeHtml {
  const id = fieldId(options.name);
  const { notes, attributes } = described(options);
  return html`<div class="field">
    <label class="checkbox" for="${id}"><input id="${id}" name="${options.name}" type="checkbox" value="on"${options.checked ? html` checked` : ''}${attributes}> ${options.label}</label>${notes}
  </div>`;
}

/** Lists what to fix, each linked to its field, and is announced when the page loads. */
export function errorSummary(errors: FieldErrors, labels: Record<string, string>): SafeHtml | '' {
  const entries = Object.entries(errors);
  if (entries.length === 0) return '';
  return html`<div class="error" role="alert" id="error-summary">
    <p><strong>Please correct ${entries.length === 1 ? 'this' : `these ${entries.length}`}:</strong></p>
    <ul>${entries.map(([name, message]) => html`<li><a href="#${fieldId(name)}">${labels[name] ?? name}: ${message}</a></li>`)}</ul>
  </div>`;
}
