import type { OAuthError } from '../oauth/errors.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';

/** Shown instead of a redirect when the client or redirect URI cannot be trusted (RFC 6749 §4.1.2.1). */
export function renderErrorPage(error: OAuthError): string {
  return layout({ title: 'Something went wrong' }, html`
    <section class="card" role="alert">
      <h1>This request cannot continue</h1>
      <p>${error.description}</p>
      <p class="muted">Error code: <code>${error.code}</code></p>
      <p class="muted">If you followed a link from an application, tell its developer; nothing was shared with it.</p>
    </section>`);
}
