import type { OAuthError } from '../oauth/errors.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';

/** An error about a verified request, offered to its application by a link rather than a redirect (RFC 9700 §4.11.2). */
export interface ErrorContinuation {
  applicationName: string;
  /** The redirect URI's host, or its scheme for a native application. */
  destination: string;
  /** The redirect URI with error, error_description, state and iss (RFC 6749 §4.1.2.1, RFC 9207). */
  location: string;
}

/**
 * Shown instead of a redirect when the client or redirect URI cannot be trusted
 * (RFC 6749 §4.1.2.1), or when nothing the user did yet says they meant to go to the
 * application: then a link continues there with the error.
 */
export function renderErrorPage(error: OAuthError, continuation?: ErrorContinuation): string {
  if (continuation !== undefined) {
    return layout({ title: 'Request not completed' }, html`
    <section class="card narrow" role="alert">
      <h1>${continuation.applicationName} sent a request Folio cannot complete</h1>
      <p>${error.description}</p>
      <p class="muted">Error code: <code>${error.code}</code></p>
      <p>Nothing was shared with the application. You can go back to it at <strong>${continuation.destination}</strong>; it will be told why.</p>
      <a class="button" href="${continuation.location}">Return to ${continuation.applicationName}</a>
    </section>`);
  }
  return layout({ title: 'Something went wrong' }, html`
    <section class="card" role="alert">
      <h1>This request cannot continue</h1>
      <p>${error.description}</p>
      <p class="muted">Error code: <code>${error.code}</code></p>
      <p class="muted">If you followed a link from an application, tell its developer; nothing was shared with it.</p>
    </section>`);
}
