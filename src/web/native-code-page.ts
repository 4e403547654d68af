import { html } from './html.ts';
import { layout } from './layout.ts';

/**
 * The out-of-band redirect (urn:ietf:wg:oauth:2.0:oob): the user copies the code into
 * the application. `code` is only ever one this browser's own authorization produced.
 */
export function renderNativeCodePage(code: string | undefined, denied = false): string {
  if (denied) {
    return layout({ title: 'Access denied' }, html`<section class="card narrow"><h1>You denied access</h1><p>The application got no code and cannot read your account. You can close this page.</p></section>`);
  }
  if (code === undefined) {
    return layout({ title: 'No code' }, html`<section class="card narrow"><h1>No authorization code</h1><p>A code is shown here once, right after you approve an application. Start again from the application.</p></section>`);
  }
  return layout({ title: 'Authorization code', copyButtons: true }, html`
    <section class="card narrow">
      <h1>Your authorization code</h1>
      <p>Copy this code and paste it into the application. It works once, within 10 minutes, and is not shown again.</p>
      <p class="secret" id="code" aria-label="Authorization code">${code}</p>
      <button type="button" class="primary" data-copy="code" hidden>Copy code</button>
    </section>`);
}
