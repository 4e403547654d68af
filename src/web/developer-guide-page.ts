// GET /developers: how to build an application on Folio. Public; no sign-in.
import { lifetimes } from '../oauth/lifetimes.ts';
import { type SafeHtml, html } from './html.ts';
import { connectAnAssistant } from './developer-guide-assistants.ts';
import { authorizationCodeFlow, clientCredentialsFlow, outOfBandFlow, refreshFlow } from './developer-guide-flows.ts';
import { interopQuirks } from './developer-guide-quirks.ts';
import { layout } from './layout.ts';

const seconds = (ms: number) => ms / 1000;

export function renderDeveloperGuide(base: string): string {
  return layout({ title: 'Developer guide' }, html`
    <section class="card">
      <h1>Building on Folio</h1>
      <p>Folio is an OAuth 2.0 authorization server (RFC 6749) with a read-only portfolio API. Reference:
        <a href="/api/v2/docs">interactive API docs</a>, the <a href="/api/v2/openapi.json">OpenAPI 3.1 document</a> and the
        <a href="/.well-known/oauth-authorization-server">server metadata</a> (RFC 8414; Folio is not an OpenID provider,
        so there is no <code>/.well-known/openid-configuration</code> and no ID token).</p>
      <nav aria-label="Contents"><a href="#assistants">AI assistants</a> <a href="#register">Register</a> <a href="#flows">Flows</a> <a href="#api">API</a>
        <a href="#lifetimes">Lifetimes</a> <a href="#errors">Errors</a> <a href="#limits">Rate limits</a> <a href="#libraries">Libraries</a></nav>
    </section>
    ${connectAnAssistant(base)}
    <section class="card" id="register">
      <h2>1. Register an application</h2>
      <p>Sign in and open <a href="/settings/applications">API settings</a> &rarr; Register an application. Give a name, one or more
        redirect URIs (exact match; https, a loopback address, a native app's private-use scheme such as
        <code>com.example.app:/callback</code>, or <code>urn:ietf:wg:oauth:2.0:oob</code>) and say whether it
        is <strong>confidential</strong> (a server that can keep a secret) or public (a mobile or desktop app). Folio sends no
        CORS headers, so a web page on another origin cannot call it: keep tokens on your own server. You get a
        <code>client_id</code> and a <code>client_secret</code>, shown once; rotate it there if it leaks.</p>
      <p>Confidential applications authenticate with HTTP Basic (<code>client_secret_basic</code>) or with
        <code>client_id</code> and <code>client_secret</code> in the body (<code>client_secret_post</code>), never both. Public
        applications send <code>client_id</code> only and must use PKCE. Token requests may be urlencoded, multipart or JSON.</p>
    </section>
    <section class="card" id="flows">
      <h2>2. Flows</h2>
      ${authorizationCodeFlow(base)}
      ${outOfBandFlow(base)}
      ${clientCredentialsFlow(base)}
      ${refreshFlow(base)}
      <p>A successful token response (RFC 6749 §5.1) is
        <code>{"access_token", "token_type": "bearer", "expires_in": 1800, "refresh_token", "created_at"}</code>;
        <code>scope</code> appears only when it differs from what you asked. Revoke tokens at <code>${base}/oauth2/revoke</code>
        (RFC 7009); confidential applications can introspect their own tokens at <code>${base}/oauth2/introspect</code> (RFC 7662).</p>
    </section>
    <section class="card" id="api">
      <h2>3. Calling the API</h2>
      <pre><code>curl -H "Authorization: Bearer ACCESS_TOKEN" ${base}/api/v2/portfolios.json</code></pre>
      <p>The token goes in the Authorization header only (RFC 6750 §2.1): one in the query string is refused, and the body
        of a GET has no meaning, so one there is never read.
        Paths work with or without <code>.json</code>: <code>/api/v2/portfolios</code>, <code>/api/v2/portfolios/ID</code>,
        <code>/api/v2/my_user</code>, and <code>/oauth2/token/info</code> describes the token itself.</p>
    </section>
    <section class="card" id="lifetimes">
      <h2>4. Lifetimes</h2>
      <table>
        <tbody>
          <tr><th scope="row">Access token</th><td>${seconds(lifetimes.accessToken)} s (30 minutes)</td></tr>
          <tr><th scope="row">Authorization code</th><td>${seconds(lifetimes.authorizationCode) / 60} minutes, single use; a replayed code revokes the tokens issued from it</td></tr>
          <tr><th scope="row">Refresh token</th><td>rotated on every use; dies after ${seconds(lifetimes.refreshTokenIdle) / 86400} days unused</td></tr>
          <tr><th scope="row">Refresh race window</th><td>${seconds(lifetimes.refreshRaceWindow)} s: a rotated token reused within it gets <code>invalid_grant</code>; later, the whole authorization is revoked</td></tr>
        </tbody>
      </table>
    </section>
    ${errorsSection(base)}
    <section class="card" id="libraries">
      <h2>7. OAuth libraries</h2>
      <p>Folio is tested with <code>openid-client</code> 6, <code>oauth4webapi</code> 3, <code>simple-oauth2</code> 5 (and Folio's own
        <code>@folio/client</code>). Where a library and Folio disagree, Folio follows the RFC:</p>
      ${interopQuirks()}
    </section>`);
}

function errorsSection(base: string): SafeHtml {
  return html`
    <section class="card" id="errors">
      <h2>5. Errors</h2>
      <p>Every error is JSON <code>{"error": "...", "error_description": "..."}</code> (RFC 6749 §5.2). Branch on
        <code>error</code>; the description is for people.</p>
      <ul>
        <li>Token endpoint: 400 <code>invalid_request</code>, <code>invalid_grant</code> (bad, used or expired code or refresh
          token), <code>unauthorized_client</code>, <code>unsupported_grant_type</code>, <code>invalid_scope</code>; 401
          <code>invalid_client</code>, with <code>WWW-Authenticate: Basic</code> when you used Basic.</li>
        <li>API and MCP (RFC 6750 §3): 401 with <code>WWW-Authenticate: Bearer realm="folio", scope="read",
          resource_metadata="&hellip;"</code> when no token was sent (the RFC 9728 metadata of the resource you called), and
          <code>error="invalid_token"</code> when it is bad, expired, revoked or issued for the other resource (refresh and
          retry once); 403 <code>insufficient_scope</code>; 404 <code>not_found</code> for a portfolio that is not the user's.</li>
        <li>Resource indicators (RFC 8707): send <code>resource=${base}/api/v2</code> or <code>resource=${base}/mcp</code> (once) on
          the authorization request and the token request to bind the token to that resource; anything else is
          <code>invalid_target</code>. Without it a token serves <code>/api/v2</code> only, as before. A refresh may narrow, never widen.</li>
        <li>Authorization endpoint: errors go to your redirect URI with <code>error</code>, <code>state</code> and
          <code>iss</code>: by redirect once the user has answered the consent page or approved your application before;
          otherwise Folio shows the error with a link that continues to you, so its links cannot bounce people anywhere
          unasked (RFC 9700 §4.11.2). An unknown client or redirect URI is shown to the user and never redirected, and
          errors of an out-of-band request are shown on Folio's page.</li>
        <li>503 <code>temporarily_unavailable</code> with <code>Retry-After</code>; 500 <code>server_error</code>.</li>
      </ul>
    </section>
    <section class="card" id="limits">
      <h2>6. Rate limits</h2>
      <p>The API and token info allow a number of requests per application and user each 60-second window (360 by
        default). Every answer to a valid token carries <code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code>,
        <code>RateLimit-Reset</code> (seconds) and <code>RateLimit-Policy</code>. Over the limit: 429
        <code>rate_limited</code> with <code>Retry-After</code> in seconds; wait that long.</p>
    </section>`;
}
