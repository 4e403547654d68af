// An AI assistant connects to a running Folio the way MCP clients do, with the
// official SDK's client: it starts from the /mcp URL alone, discovers Folio from
// the 401, registers itself (by a client ID metadata document served over https
// on loopback, or by RFC 7591), sends the person to sign in and approve, and then
// calls tools with a token bound to /mcp.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { HttpBrowser, hiddenFields } from '../support/http-browser.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';

const EMAIL = 'owner@example.test';
const PASSWORD = 'assistant-owner-password';
const CALLBACK = 'http://127.0.0.1:33418/callback';

/** An assistant's memory of one connection, as the SDK asks a client to keep it. */
class AssistantProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly clientMetadataUrl?: string) {}
  get redirectUrl() { return CALLBACK; }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Test Assistant', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.information; }
  saveClientInformation(information: OAuthClientInformationMixed) { this.information = information; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

/** A self-signed certificate for 127.0.0.1, which the Folio process is told to trust. */
function loopbackCertificate(directory: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(directory, 'key.pem');
  const certFile = join(directory, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

describe('an AI assistant connects through MCP with the official SDK', () => {
  let directory: string;
  let documents: Server;
  let documentUrl: string;
  let server: ServerProcess;
  let mcpUrl: URL;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'folio-mcp-'));
    const { key, cert, certFile } = loopbackCertificate(directory);
    documents = createServer({ key, cert }, (request, response) => {
      response.writeHead(request.url === '/assistant/client.json' ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
      response.end(request.url === '/assistant/client.json' ? JSON.stringify({ client_id: documentUrl, ...new AssistantProvider().clientMetadata }) : '{}');
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    documentUrl = `https://127.0.0.1:${(documents.address() as { port: number }).port}/assistant/client.json`;
    server = await startServerProcess((folio) => {
      folio('user', 'create', '--email', EMAIL, '--password', PASSWORD, '--name', 'Olive Owner');
      folio('portfolio', 'create', '--owner', EMAIL, '--name', 'Assistant Fund', '--currency', 'NZD', '--country', 'NZ');
    }, { env: { NODE_EXTRA_CA_CERTS: certFile, FOLIO_ENV: 'development', FOLIO_HOST: '127.0.0.1' } });
    mcpUrl = new URL(`${server.baseUrl}/mcp`);
  });

  after(async () => {
    server?.cleanup();
    await new Promise((resolve) => documents?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  /** The person's part: sign in, read the consent page, approve; returns the page and the code. */
  async function approveInBrowser(authorizationUrl: URL): Promise<{ consentPage: string; code: string }> {
    const browser = new HttpBrowser(server.baseUrl);
    await browser.signIn(EMAIL, PASSWORD);
    const consent = await browser.request(authorizationUrl.toString());
    assert.equal(consent.status, 200);
    const consentPage = await consent.text();
    const approved = await browser.post('/oauth2/authorize', { ...hiddenFields(consentPage), decision: 'approve' });
    assert.equal(approved.status, 303);
    const callback = new URL(approved.headers.get('location')!);
    assert.equal(`${callback.origin}${callback.pathname}`, CALLBACK);
    return { consentPage, code: callback.searchParams.get('code')! };
  }

  /** From nothing but the URL to a connected client, as an assistant does it. */
  async function connect(provider: AssistantProvider): Promise<{ client: Client; consentPage: string }> {
    const first = new Client({ name: 'test-assistant', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await assert.rejects(first.connect(transport), UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    assert.equal(authorizationUrl.searchParams.get('resource'), mcpUrl.href, 'the SDK found the resource from the 401');
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    const { consentPage, code } = await approveInBrowser(authorizationUrl);
    await transport.finishAuth(code);
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    return { client, consentPage };
  }

  const bearerGet = (path: string, token: string) => fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('registers by its client ID metadata document, lists and calls tools, refreshes, and is refused by /api/v2', async () => {
    const provider = new AssistantProvider(documentUrl);
    const { client, consentPage } = await connect(provider);
    assert.equal(provider.information?.client_id, documentUrl, 'no registration: the URL is the client_id');
    assert.ok(consentPage.includes('Test Assistant'));
    assert.ok(consentPage.includes('127.0.0.1'), 'the consent page names the hosts');

    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['get_my_user', 'get_portfolio', 'list_portfolios']);
    const listed = await client.callTool({ name: 'list_portfolios', arguments: {} });
    assert.notEqual(listed.isError, true);
    const { portfolios } = listed.structuredContent as { portfolios: { id: number; name: string }[] };
    assert.deepEqual(portfolios.map((portfolio) => portfolio.name), ['Assistant Fund']);
    const one = await client.callTool({ name: 'get_portfolio', arguments: { id: portfolios[0]!.id } });
    assert.equal((one.structuredContent as { portfolio: { name: string } }).portfolio.name, 'Assistant Fund');
    await client.close();

    const mcpToken = provider.saved!.access_token;
    const refused = await bearerGet('/api/v2/portfolios.json', mcpToken);
    assert.equal(refused.status, 401, 'a token for /mcp is not one for /api/v2');
    assert.match(refused.headers.get('www-authenticate') ?? '', /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/v2"/);

    assert.equal(await auth(provider, { serverUrl: mcpUrl }), 'AUTHORIZED');
    assert.notEqual(provider.saved!.access_token, mcpToken, 'the refresh gave a new access token');
    const again = new Client({ name: 'test-assistant', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    assert.equal((await again.callTool({ name: 'get_my_user', arguments: {} })).isError, undefined);
    await again.close();
  });

  it('registers itself by RFC 7591 when it has no metadata document, and is told about itself on the consent page', async () => {
    const provider = new AssistantProvider();
    const { client, consentPage } = await connect(provider);
    assert.match(provider.information!.client_id, /^[A-Za-z0-9_-]+$/, 'Folio issued a client_id');
    assert.match(consentPage, /registered itself/i);
    const listed = await client.callTool({ name: 'list_portfolios', arguments: {} });
    assert.equal((listed.structuredContent as { portfolios: unknown[] }).portfolios.length, 1);
    await client.close();
  });

  it('refuses on /mcp a token issued for /api/v2 or without a resource, pointing at its metadata', async () => {
    const owner = JSON.parse(server.folio('app', 'create', '--owner', EMAIL, '--name', 'Script', '--redirect-uri', 'https://script.example/cb', '--json')) as {
      client_id: string; client_secret: string;
    };
    const basic = `Basic ${Buffer.from(`${owner.client_id}:${owner.client_secret}`).toString('base64')}`;
    for (const resource of [undefined, `${server.baseUrl}/api/v2`]) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', ...(resource === undefined ? {} : { resource }) });
      const issued = await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { authorization: basic }, body });
      assert.equal(issued.status, 200, await issued.clone().text());
      const { access_token: token } = await issued.json() as { access_token: string };
      assert.equal((await bearerGet('/api/v2/portfolios.json', token)).status, 200);
      const call = await fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(call.status, 401, String(resource));
      assert.match(call.headers.get('www-authenticate') ?? '', /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
    }
  });
});
