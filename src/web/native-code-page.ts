import { html } from './html.ts';
import { layout } from './layout.ts';

/** The out-of-band redirect (urn:ietf:wg:oauth:2.0:oob): the user copies the code into the application. */
export function renderNativeCodePage(code: string | undefined, denied = false): string {
  if (denied) {
    return layout({ title: 'Access denied' }, html`<section class="card narrow"><h1>You denied access</h1><p>The application got no code and cannot read your account. You can close this page.</p></section>`);
  }
  if (code === undefined) {
    return layout({ title: 'No code' }, html`<section class="card narrow"><h1>No authorization code</h1><p>Start again from the application.</p></section>`);
  }
  return layout({ title: 'Authorization code' }, html`
    <section class="card narrow">
      <h1>Your authorization code</h1>
      <p>Copy this code and paste it into the application. It works once, within 10 minutes.</p>
      <label for="code">Authorization code</label>
      <input id="code" class="code" type="text" readonly value="${code}">
    </section>`);
}
