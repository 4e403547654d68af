import { html } from './html.ts';
import { layout } from './layout.ts';

export interface SignInPageModel {
  csrfToken: string;
  /** A local path to return to after signing in. */
  returnTo: string;
  email?: string;
  error?: string;
  /** The application that asked, when sign-in is part of an authorization. */
  applicationName?: string;
  /** Offer "Create an account" (sign-up is open). */
  allowSignup?: boolean;
  /** Who is still signed in, if anyone: prompt=login asks for a fresh sign-in over a live session. */
  signedInAs?: string;
}

/** Sign-up keeps the address to return to, so an authorization can continue after it. */
function signUpLink(returnTo: string) {
  const href = returnTo === '/' ? '/signup' : `/signup?${new URLSearchParams({ return_to: returnTo })}`;
  return html`<p class="muted">New to Folio? <a href="${href}">Create an account</a></p>`;
}

export function renderSignInPage(model: SignInPageModel): string {
  return layout({ title: 'Sign in' }, html`
    <section class="card narrow">
      <h1>Sign in to Folio</h1>
      ${model.applicationName === undefined ? '' : html`<p class="muted"><strong>${model.applicationName}</strong> wants to connect to your account. Sign in to continue.</p>`}
      ${model.signedInAs === undefined ? '' : html`<p class="muted">You are signed in as <strong>${model.signedInAs}</strong>. Sign in again to continue, with this account or another.</p>`}
      ${model.error === undefined ? '' : html`<p class="error" role="alert" id="sign-in-error">${model.error}</p>`}
      <form method="post" action="/login" novalidate>
        <input type="hidden" name="csrf_token" value="${model.csrfToken}">
        <input type="hidden" name="return_to" value="${model.returnTo}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus value="${model.email ?? ''}"${model.error === undefined ? '' : html` aria-describedby="sign-in-error"`}>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit" class="primary">Sign in</button>
      </form>
      ${model.allowSignup ? signUpLink(model.returnTo) : ''}
    </section>`);
}
