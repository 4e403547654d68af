// The developer guide's "Connect an AI assistant": what to paste into an MCP
// client, and what the person connecting it will see, step by step.
import { type SafeHtml, html } from './html.ts';

export function connectAnAssistant(base: string): SafeHtml {
  return html`
    <section class="card" id="assistants">
      <h2>Connect an AI assistant</h2>
      <p>Folio is also a Model Context Protocol (MCP) server. In any assistant that can add a remote MCP server (a
        "connector" or "custom integration"), paste this one address:</p>
      <pre><code>${base}/mcp</code></pre>
      <ol>
        <li>The assistant calls it, is told to sign in, and finds Folio's sign-in from there (MCP authorization:
          RFC 9728 protected resource metadata, then RFC 8414).</li>
        <li>It registers itself: either its <code>client_id</code> is an https address whose document describes it, or it
          registers at <code>${base}/oauth2/register</code> (RFC 7591). Nobody has to create an application by hand.</li>
        <li>A Folio page opens in the browser. The person signs in and sees the consent page: the assistant's name, the
          host it will send them back to (and, for an assistant that names itself by address, that address's host), what it
          will reach, and a warning when it registered itself or only ever returns to this computer. They approve or deny.</li>
        <li>The assistant gets a token for <code>${base}/mcp</code> only and can now use three read-only tools:
          <code>list_portfolios</code>, <code>get_portfolio</code> (by id) and <code>get_my_user</code>. Each answers with a
          short text and the same records as <code>/api/v2</code>; tool calls count against the same rate limit.</li>
      </ol>
      <p>To disconnect it, open <a href="/settings/connections">Connected applications</a>, which shows each assistant and
        when it was last used, and revoke it: its tokens stop working at once.</p>
      <p>Building your own MCP client? The endpoint speaks the Streamable HTTP transport (protocol revisions 2025-11-25
        and 2025-06-18) without sessions: send every JSON-RPC message as a POST with
        <code>Accept: application/json, text/event-stream</code> and the bearer token; answers are JSON, and GET
        and DELETE are 405.</p>
    </section>`;
}
