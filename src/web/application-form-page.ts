// The form that registers or edits an application (API settings). Errors sit next to
// their field (aria-describedby, aria-invalid) and every value typed is kept.
import { type SafeHtml, html } from './html.ts';
import { layout } from './layout.ts';
import type { PageUser } from './page-user.ts';

export type ApplicationField = 'name' | 'redirect_uris' | 'client_type';

export interface ApplicationFormValues {
  name: string;
  /** As typed: one redirect URI per line. */
  redirectUris: string;
  clientType: 'confidential' | 'public';
  pkceRequired: boolean;
}

export interface ApplicationFormModel {
  user: PageUser;
  /** Where the form posts; absent id means a new application. */
  applicationId?: number;
  values: ApplicationFormValues;
  errors: Partial<Record<ApplicationField, string>>;
}

export const NEW_APPLICATION_VALUES: ApplicationFormValues = { name: '', redirectUris: '', clientType: 'confidential', pkceRequired: false };

function described(field: ApplicationField, hint: boolean, errors: ApplicationFormModel['errors']): SafeHtml {
  const ids = [hint ? `${field}-hint` : '', errors[field] === undefined ? '' : `${field}-error`].filter((id) => id !== '');
  return html`${ids.length === 0 ? '' : html` aria-describedby="${ids.join(' ')}"`}${errors[field] === undefined ? '' : html` aria-invalid="true"`}`;
}

function fieldError(field: ApplicationField, errors: ApplicationFormModel['errors']): SafeHtml | '' {
  const message = errors[field];
  return message === undefined ? '' : html`<p class="field-error" id="${field}-error">${message}</p>`;
}

export function renderApplicationForm(model: ApplicationFormModel): string {
  const { values, errors } = model;
  const editing = model.applicationId !== undefined;
  const action = editing ? `/settings/applications/${model.applicationId}/edit` : '/settings/applications/new';
  const title = editing ? `Edit ${values.name}` : 'Register an application';
  const problems = Object.keys(errors).length;
  return layout({ title, signedInAs: model.user }, html`
    <section class="card">
      <h1>${editing ? html`Edit <span class="app-name">${values.name}</span>` : 'Register an application'}</h1>
      ${problems === 0 ? '' : html`<p class="error" role="alert">${problems === 1 ? 'One field needs' : `${problems} fields need`} attention.</p>`}
      <form method="post" action="${action}" novalidate>
        <input type="hidden" name="csrf_token" value="${model.user.csrfToken}">
        <label for="name">Name</label>
        <input id="name" name="name" type="text" maxlength="100" required value="${values.name}"${described('name', true, errors)}>
        <p class="hint" id="name-hint">Shown to people when your application asks for access; 1 to 100 characters.</p>
        ${fieldError('name', errors)}

        <label for="redirect_uris">Redirect URIs</label>
        <textarea id="redirect_uris" name="redirect_uris" rows="4" required spellcheck="false"${described('redirect_uris', true, errors)}>${values.redirectUris}</textarea>
        <p class="hint" id="redirect_uris-hint">One per line: https, http on localhost or 127.0.0.1, a private-use scheme such as
          <code>com.example.app:/callback</code>, or <code>urn:ietf:wg:oauth:2.0:oob</code> to have the code shown for copying.</p>
        ${fieldError('redirect_uris', errors)}

        <fieldset id="client_type"${described('client_type', true, {})}>
          <legend>Client type</legend>
          <label class="checkbox"><input type="radio" name="client_type" value="confidential"${values.clientType === 'confidential' ? html` checked` : ''}${described('client_type', false, errors)}> Confidential: runs on a server that can keep the secret</label>
          <label class="checkbox"><input type="radio" name="client_type" value="public"${values.clientType === 'public' ? html` checked` : ''}${described('client_type', false, errors)}> Public: a mobile, desktop or browser application that cannot keep a secret</label>
          <p class="hint" id="client_type-hint">Public applications always use PKCE and cannot use the client credentials grant.</p>
          ${fieldError('client_type', errors)}
        </fieldset>

        <label class="checkbox"><input type="checkbox" name="pkce_required" value="on"${values.pkceRequired ? html` checked` : ''}> Require PKCE (S256) for confidential use too</label>

        <div class="actions">
          <button type="submit" class="primary">${editing ? 'Save changes' : 'Register application'}</button>
          <a class="link" href="${editing ? `/settings/applications/${model.applicationId}` : '/settings/applications'}">Cancel</a>
        </div>
      </form>
    </section>`);
}
