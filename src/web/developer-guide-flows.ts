// The developer guide's step-by-step flows; one function per flow so each reads alone.
import { type SafeHtml, html } from './html.ts';

const pre = (text: string) => html`<pre><code>${text}</code></pre>`;

export function authorizationCodeFlow(base: string): SafeHtml {
  return html`
    <h3 id="flow-code">Authorization code with PKCE (RFC 6749 §4.1, RFC 7636)</h3>
    <ol>
      <li>Make a PKCE pair: <code>code_verifier</code> = 32 random bytes, base64url;
        <code>code_challenge</code> = base64url(SHA-256(verifier)). Only <code>S256</code> is accepted.
        Public applications must send it; confidential ones may.</li>
      <li>Make a random <code>state</code> and keep it with the verifier in the user's session.</li>
      <li>Send the browser to the authorization endpoint:
        ${pre(`${base}/oauth2/authorize?response_type=code&client_id=CLIENT_ID&redirect_uri=https%3A%2F%2Fclient.example%2Fcallback&state=STATE&code_challenge=CHALLENGE&code_challenge_method=S256`)}
        The user signs in and approves. Add <code>prompt=login</code> (or <code>prompt_login=true</code>) to force a new sign-in,
        <code>prompt=consent</code> to ask again, <code>prompt=none</code> to fail with <code>login_required</code>/<code>consent_required</code> instead of showing a page
        (redirected only for a user who approved your application before; anyone else sees Folio's error page, with a link back to you).</li>
      <li>Folio redirects to your <code>redirect_uri</code> with <code>code</code>, <code>state</code> and <code>iss</code> (RFC 9207).
        Check that <code>state</code> is yours and <code>iss</code> is <code>${base}</code>. A refusal arrives the same way with
        <code>error=access_denied</code>.</li>
      <li>Exchange the code within 10 minutes (it works once):
        ${pre(`curl -u CLIENT_ID:CLIENT_SECRET ${base}/oauth2/token \\
  -d grant_type=authorization_code -d code=CODE \\
  -d redirect_uri=https://client.example/callback -d code_verifier=VERIFIER`)}
        A public application sends <code>-d client_id=CLIENT_ID</code> instead of <code>-u</code> and never a secret.</li>
    </ol>`;
}

export function outOfBandFlow(base: string): SafeHtml {
  return html`
    <h3 id="flow-oob">Out-of-band (no redirect server)</h3>
    <p>Register <code>urn:ietf:wg:oauth:2.0:oob</code> as a redirect URI and use it in step 3 above. After approval the
      browser lands on <code>${base}/oauth2/authorize/native</code>, which shows the code once, to that browser only, for
      the user to copy into your application; exchange it with <code>redirect_uri=urn:ietf:wg:oauth:2.0:oob</code>. Desktop applications should prefer a
      loopback redirect (<code>http://127.0.0.1/callback</code>; any port matches, RFC 8252 §7.3).</p>`;
}

export function clientCredentialsFlow(base: string): SafeHtml {
  return html`
    <h3 id="flow-client-credentials">Client credentials (your own account)</h3>
    <p>For scripts that read the portfolios of the account that registered the application. Confidential applications only;
      no refresh token is issued: ask again when the access token expires.</p>
    ${pre(`curl -u CLIENT_ID:CLIENT_SECRET ${base}/oauth2/token -d grant_type=client_credentials`)}`;
}

export function refreshFlow(base: string): SafeHtml {
  return html`
    <h3 id="flow-refresh">Refreshing, with rotation</h3>
    ${pre(`curl -u CLIENT_ID:CLIENT_SECRET ${base}/oauth2/token \\
  -d grant_type=refresh_token -d refresh_token=REFRESH_TOKEN`)}
    <p>Every refresh returns a new access token <em>and a new refresh token</em>; store the new one before using the access
      token. The old refresh token dies at once (the old access token lives until it expires). If two of your processes race
      with the same refresh token, exactly one wins; the other gets <code>invalid_grant</code>. Presented again more than
      10 seconds after it was rotated, an old refresh token is treated as stolen and every token of that authorization is
      revoked: run the authorization flow again. Refresh from one place (a single-flight lock), as the Folio SDK does.</p>`;
}
