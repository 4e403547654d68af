// Where common OAuth libraries and Folio disagree: openid-client, oauth4webapi and
// simple-oauth2 are driven by test/interop/; the others were read, not run. Folio follows the RFC.
import { type SafeHtml, html } from './html.ts';

export function interopQuirks(): SafeHtml {
  return html`
    <ul>
      <li><strong>Discovery:</strong> Folio publishes RFC 8414 metadata at <code>/.well-known/oauth-authorization-server</code>,
        not OpenID Connect discovery. In <code>openid-client</code> pass <code>{ algorithm: 'oauth2' }</code> to
        <code>discovery()</code>; in <code>oauth4webapi</code> use <code>discoveryRequest(issuer, { algorithm: 'oauth2' })</code>.</li>
      <li><strong>token_type is lowercase <code>bearer</code></strong> (the values are case-insensitive, RFC 6749 §5.1). Both
        libraries accept it; compare case-insensitively in your own code.</li>
      <li><strong>No <code>scope</code> in token responses</strong> unless the granted scope differs from the requested one
        (RFC 6749 §5.1 makes it optional then). Assume you got what you asked for.</li>
      <li><strong><code>created_at</code></strong> is an extra member (issue time in Unix seconds); libraries pass it through.</li>
      <li><strong>Plain HTTP:</strong> both libraries refuse <code>http://</code> endpoints; for a local Folio use
        <code>execute: [allowInsecureRequests]</code> (openid-client) or <code>[allowInsecureRequests]: true</code> (oauth4webapi).</li>
      <li><strong>401 from the API is thrown:</strong> <code>fetchProtectedResource</code> (openid-client) and
        <code>protectedResourceRequest</code> (oauth4webapi) throw <code>WWWAuthenticateChallengeError</code> when Folio answers
        401 with <code>WWW-Authenticate: Bearer &hellip; error="invalid_token"</code> (RFC 6750 §3) instead of returning the response.
        Catch it, refresh once and retry.</li>
      <li><strong>Revoking an access token</strong> (RFC 7009) ends only that token; revoke the refresh token to end the
        authorization and every access token issued from it. Revocation answers 200 even for unknown tokens, so both libraries report success either way.</li>
      <li><strong>simple-oauth2:</strong> a public client sends its <code>client_id</code> in the body:
        <code>options: { authorizationMethod: 'body' }</code>.</li>
      <li><strong>requests-oauthlib and Authlib:</strong> ask for PKCE with <code>S256</code>
        (<code>OAuth2Session(..., pkce='S256')</code>, <code>code_challenge_method='S256'</code>); Folio refuses
        <code>plain</code>. Both send the secret by HTTP Basic, which Folio takes as it is.</li>
      <li><strong>Ruby oauth2:</strong> works as it is; its default revocation sends the token in the query string of a
        POST, which Folio accepts there (and nowhere else).</li>
      <li><strong>Spring Security's OAuth2 client:</strong> works as it is with
        <code>client-authentication-method: client_secret_basic</code>; a public client uses <code>none</code> with PKCE.</li>
      <li><strong>league/oauth2-client:</strong> the generic provider joins scopes with a comma unless told otherwise:
        set <code>'scopeSeparator' =&gt; ' '</code>.</li>
      <li><strong>Authorization response <code>iss</code>:</strong> Folio sends it (RFC 9207) and says so in its metadata, so the
        libraries check it; keep the library's check on.</li>
    </ul>`;
}
