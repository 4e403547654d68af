import { errorSummary, textField, type FieldErrors } from './form-fields.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { MIN_PASSWORD_LENGTH, signUpLabels, type SignUpValues } from './sign-up-form.ts';

export interface SignUpPageModel {
  csrfToken: string;
  returnTo: string;
  values?: SignUpValues;
  errors?: FieldErrors;
  /** A problem with the whole form rather than one field. */
  error?: string;
}

export function renderSignUpPage(model: SignUpPageModel): string {
  const errors = model.errors ?? {};
  const values = model.values ?? { name: '', email: '' };
  const signIn = model.returnTo === '/' ? '/login' : `/login?${new URLSearchParams({ return_to: model.returnTo })}`;
  return layout({ title: 'Create an account' }, html`
    <section class="card narrow">
      <h1>Create your Folio account</h1>
      ${model.error === undefined ? '' : html`<p class="error" role="alert">${model.error}</p>`}
      ${errorSummary(errors, signUpLabels)}
      <form method="post" action="/signup" novalidate>
        <input type="hidden" name="csrf_token" value="${model.csrfToken}">
        <input type="hidden" name="return_to" value="${model.returnTo}">
        ${textField({ name: 'name', label: signUpLabels.name, value: values.name, autocomplete: 'name', maxlength: 100, error: errors.name, autofocus: Object.keys(errors).length === 0 })}
        ${textField({ name: 'email', label: signUpLabels.email, type: 'email', value: values.email, autocomplete: 'email', error: errors.email })}
        ${textField({ name: 'password', label: signUpLabels.password, type: 'password', value: '', autocomplete: 'new-password', hint: `At least ${MIN_PASSWORD_LENGTH} characters. A few unrelated words make a strong one.`, error: errors.password })}
        ${textField({ name: 'confirm', label: signUpLabels.confirm, type: 'password', value: '', autocomplete: 'new-password', error: errors.confirm })}
        <button type="submit" class="primary">Create account</button>
      </form>
      <p class="muted">Already have an account? <a href="${signIn}">Sign in</a></p>
    </section>`);
}
