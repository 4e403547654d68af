// API settings (DESIGN §1): the applications I registered, one application with its
// client_id (and, once, its secret), and the confirmations before rotating or deleting.
import type { Application } from '../domain/records.ts';
import { timeElement } from './format.ts';
import { type SafeHtml, html } from './html.ts';
import { layout } from './layout.ts';
import type { PageUser } from './page-user.ts';

const clientType = (application: Application) => (application.confidential ? 'Confidential' : 'Public');
const pkce = (application: Application) => (application.pkceRequired ? 'Required' : 'Optional');

function guide(): SafeHtml {
  return html`<p class="muted">Send people to <code>/oauth2/authorize</code> with your client_id and a registered redirect URI,
    then exchange the code at <code>/oauth2/token</code>. Every endpoint is listed in the
    <a href="/.well-known/oauth-authorization-server">server metadata</a> (RFC 8414).
    The <a href="/developers">developer guide</a> walks through each flow.</p>`;
}

export function renderApplicationList(model: { user: PageUser; applications: Application[]; notice?: string }): string {
  return layout({ title: 'API settings', signedInAs: model.user }, html`
    <section class="card">
      <h1>API settings</h1>
      ${model.notice === undefined ? '' : html`<p class="notice" role="status">${model.notice}</p>`}
      <p>Applications you register here can ask people for access to their portfolios.</p>
      ${guide()}
      <p><a href="/settings/applications/new">Register an application</a></p>
      ${model.applications.length === 0 ? html`<p class="muted">You have not registered any applications yet.</p>` : html`
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">client_id</th><th scope="col">Type</th><th scope="col" class="optional">PKCE</th><th scope="col" class="optional">Redirect URIs</th></tr></thead>
        <tbody>${model.applications.map((application) => html`
          <tr>
            <td><a href="/settings/applications/${application.id}">${application.name}</a></td>
            <td><code>${application.clientId}</code></td>
            <td>${clientType(application)}</td>
            <td class="optional">${pkce(application)}</td>
            <td class="optional">${application.redirectUris.map((uri) => html`<code>${uri}</code><br>`)}</td>
          </tr>`)}
        </tbody>
      </table>`}
    </section>`);
}

export interface ApplicationDetailModel {
  user: PageUser;
  application: Application;
  /** A secret just created or rotated, shown this once. */
  secret?: string;
  notice?: string;
}

export function renderApplicationDetail(model: ApplicationDetailModel): string {
  const { application } = model;
  const base = `/settings/applications/${application.id}`;
  return layout({ title: application.name, signedInAs: model.user, copyButtons: model.secret !== undefined }, html`
    ${model.secret === undefined ? '' : html`
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Client secret</h2>
      <p class="notice" role="status">Copy the secret now and keep it safe: it is shown only this once.
        If you lose it, make a new one.</p>
      <p class="secret" id="client-secret">${model.secret}</p>
      <button type="button" data-copy="client-secret" hidden>Copy secret</button>
    </section>`}
    <section class="card">
      <p><a href="/settings/applications">&larr; API settings</a></p>
      <h1 class="app-name">${application.name}</h1>
      ${model.notice === undefined ? '' : html`<p class="notice" role="status">${model.notice}</p>`}
      <table>
        <tbody>
          <tr><th scope="row">client_id</th><td><code id="client-id">${application.clientId}</code></td></tr>
          <tr><th scope="row">Type</th><td>${clientType(application)}</td></tr>
          <tr><th scope="row">PKCE</th><td>${pkce(application)}</td></tr>
          <tr><th scope="row">Redirect URIs</th><td>${application.redirectUris.map((uri) => html`<code>${uri}</code><br>`)}</td></tr>
          <tr><th scope="row">Scopes</th><td>${application.scopes.join(' ')}</td></tr>
          <tr><th scope="row">Registered</th><td>${timeElement(application.createdAt)}</td></tr>
        </tbody>
      </table>
      <p class="actions">
        <a href="${base}/edit">Edit</a>
        <a href="${base}/rotate-secret">Make a new secret</a>
        <a href="${base}/delete">Delete</a>
      </p>
      ${guide()}
    </section>`);
}

export interface ConfirmModel {
  user: PageUser;
  application: Application;
  action: 'rotate-secret' | 'delete';
}

export function renderApplicationConfirm(model: ConfirmModel): string {
  const { application } = model;
  const rotate = model.action === 'rotate-secret';
  const title = rotate ? `New secret for ${application.name}` : `Delete ${application.name}`;
  return layout({ title, signedInAs: model.user }, html`
    <section class="card narrow">
      <h1>${rotate ? 'Make a new secret for' : 'Delete'} <span class="app-name">${application.name}</span>?</h1>
      <p>${rotate
        ? 'The current secret stops working at once: every server that uses it will fail to get tokens until it has the new one.'
        : 'Every person connected to it loses the connection, and every token it holds stops working at once. This cannot be undone.'}</p>
      <form method="post" action="/settings/applications/${application.id}/${model.action}" class="actions">
        <input type="hidden" name="csrf_token" value="${model.user.csrfToken}">
        <button type="submit" class="${rotate ? 'primary' : 'danger'}">${rotate ? 'Make a new secret' : 'Delete application'}</button>
        <a class="link" href="/settings/applications/${application.id}">Cancel</a>
      </form>
    </section>`);
}
