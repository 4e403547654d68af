import type { ClientRegistration } from '../domain/records.ts';
import { clientIdHost, clientOrigin } from './client-origin.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { describeScope } from './scope-descriptions.ts';

export interface ConsentPageModel {
  applicationName: string;
  clientId: string;
  registration: ClientRegistration;
  /** Null for a client no person registered. */
  ownerName: string | null;
  /** Host the browser returns to, or null for the out-of-band page. */
  redirectHost: string | null;
  /** This request returns to this machine (loopback): the client may be any program on it. */
  loopbackRedirect: boolean;
  scopes: string[];
  /** What its tokens will reach: the resource asked for (RFC 8707), or the portfolio API. */
  reach: string;
  /** The authorization request's parameters, posted back unchanged. */
  params: Readonly<Record<string, string>>;
  csrfToken: string;
  user: { name: string; email: string };
}

export function renderConsentPage(model: ConsentPageModel): string {
  const hidden = Object.entries(model.params).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return layout({ title: `Connect ${model.applicationName}`, signedInAs: { ...model.user, csrfToken: model.csrfToken } }, html`
    <section class="card narrow">
      <h1>Connect <span class="app-name">${model.applicationName}</span>?</h1>
      <p class="muted">${clientOrigin(model.registration, model.clientId, model.ownerName)}. Signed in as ${model.user.email}.</p>
      ${warnings(model).map((warning) => html`<p class="warning" role="note">${warning}</p>`)}
      <h2>It will be able to</h2>
      <ul class="scopes">${model.scopes.map((scope) => html`<li>${describeScope(scope)}</li>`)}</ul>
      <p class="reach">It will reach ${model.reach}.</p>
      <p class="muted">${model.redirectHost === null
        ? 'You will be shown a code to copy into the application.'
        : html`You will be sent back to <strong>${model.redirectHost}</strong>.`}
        You can revoke access at any time under Connected applications.</p>
      <form method="post" action="/oauth2/authorize" class="actions">
        <input type="hidden" name="csrf_token" value="${model.csrfToken}">
        ${hidden}
        <button type="submit" name="decision" value="approve" class="primary">Allow access</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>
    </section>`);
}

/** What a person should weigh before trusting a client no one on Folio vouches for. */
function warnings(model: ConsentPageModel): string[] {
  const found: string[] = [];
  if (model.registration === 'dynamic') {
    found.push('This application registered itself with Folio: its name is its own claim, and no developer on Folio answers for it. Allow access only if you started this connection.');
  }
  if (model.registration === 'metadata_document') {
    found.push(`This application is described by ${clientIdHost(model.clientId)}, not registered on Folio. Allow access only if you trust that site.`);
  }
  if (model.loopbackRedirect) {
    found.push('It returns to this computer (localhost): any program running on it could be the one asking.');
  }
  return found;
}
