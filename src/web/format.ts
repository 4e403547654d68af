// How pages write times: one unambiguous form, in UTC, readable at a glance.
import { type SafeHtml, html } from './html.ts';

/** "2026-01-15 09:00 UTC" in a <time> element that carries the exact instant. */
export function timeElement(millis: number): SafeHtml {
  const iso = new Date(millis).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}
