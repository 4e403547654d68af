// Connected applications (DESIGN §1): who holds access to my account, and a way to end it.
import type { ConnectedApplication } from '../domain/records.ts';
import { clientOrigin } from './client-origin.ts';
import { timeElement } from './format.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import type { PageUser } from './page-user.ts';
import { describeScope } from './scope-descriptions.ts';

export function renderConnectionsPage(model: { user: PageUser; connections: ConnectedApplication[]; notice?: string }): string {
  return layout({ title: 'Connected applications', signedInAs: model.user }, html`
    <section class="card">
      <h1>Connected applications</h1>
      ${model.notice === undefined ? '' : html`<p class="notice" role="status">${model.notice}</p>`}
      <p>These applications can read your account until you revoke their access.
        Revoking takes effect at once: their tokens stop working and they must ask you again.</p>
      ${model.connections.length === 0 ? html`<p class="muted">No application has access to your account.</p>` : html`
      <table>
        <thead><tr><th scope="col">Application</th><th scope="col">Can</th><th scope="col" class="optional">Granted</th><th scope="col" class="optional">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
        <tbody>${model.connections.map((connection) => html`
          <tr>
            <td><strong class="app-name">${connection.applicationName}</strong><br><span class="muted">${clientOrigin(connection.registration, connection.clientId, connection.ownerName)}</span></td>
            <td>${connection.scope.map((scope) => html`${describeScope(scope)}<br>`)}</td>
            <td class="optional">${timeElement(connection.grantedAt)}</td>
            <td class="optional">${connection.lastUsedAt === null ? 'Not yet' : timeElement(connection.lastUsedAt)}</td>
            <td>
              <form method="post" action="/settings/connections/${connection.grantId}/revoke" class="inline">
                <input type="hidden" name="csrf_token" value="${model.user.csrfToken}">
                <button type="submit" class="danger" aria-label="Revoke access of ${connection.applicationName}">Revoke</button>
              </form>
            </td>
          </tr>`)}
        </tbody>
      </table>`}
    </section>`);
}
