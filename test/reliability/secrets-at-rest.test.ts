// Secrets at rest (issue #7, DESIGN §2 "Secrets and tokens"): after every flow
// that handles a credential, none of them is in the database files (the main
// file, its WAL and shared-memory index, byte for byte) or in the debug log.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import {
  Browser, PASSWORD, REDIRECT_URI, type RegisteredClient, apiStatus, clientCredentials, hiddenFields, redeemCode, refresh, report,
} from './support.ts';

const OOB = 'urn:ietf:wg:oauth:2.0:oob';
const SIGN_UP_PASSWORD = 'signup-secret-horse-battery';
const WRONG_PASSWORD = 'wrong-password-typed-once';

/** Where a leaked credential could sit: every file in the database's directory, and the log. */
function scan(files: string[], secrets: Map<string, string>): { bytes: number; leaks: string[] } {
  let bytes = 0;
  const leaks: string[] = [];
  for (const file of files) {
    const content = readFileSync(file);
    bytes += content.length;
    for (const [label, secret] of secrets) {
      // The value, and the value without its type prefix (were it stored in parts).
      const needles = [secret, secret.replace(/^folio_[a-z]{2}_/, '')];
      if (needles.some((needle) => content.includes(needle))) leaks.push(`${label} in ${file}`);
    }
  }
  return { bytes, leaks };
}

describe('secrets at rest', () => {
  let server: ServerProcess;
  let client: RegisteredClient;
  const logDirectory = mkdtempSync(join(tmpdir(), 'folio-secrets-log-'));
  const logFile = join(logDirectory, 'folio.log');

  before(async () => {
    server = await startServerProcess((folio) => {
      folio('user', 'create', '--email', 'keeper@example.test', '--password', PASSWORD);
      client = JSON.parse(folio('app', 'create', '--owner', 'keeper@example.test', '--name', 'Keeper', '--redirect-uri', REDIRECT_URI, '--redirect-uri', OOB, '--json'));
    }, { env: { FOLIO_LOG_LEVEL: 'trace' }, logFile });
  });
  after(() => {
    server?.cleanup();
    rmSync(logDirectory, { recursive: true, force: true });
  });

  it('keeps no token, code, secret, password or session id in the database files or the log', { timeout: 60_000 }, async () => {
    const { baseUrl } = server;
    const secrets = new Map<string, string>([['password', PASSWORD], ['sign-up password', SIGN_UP_PASSWORD], ['wrong password', WRONG_PASSWORD], ['client secret (CLI)', client.client_secret]]);
    const keep = (label: string, value: string | undefined | null) => {
      assert.ok(value, `no ${label}`);
      secrets.set(`${label} #${secrets.size}`, value);
    };

    // Sign-in, with one failure first; the session cookie is a credential too.
    const browser = new Browser(baseUrl);
    const loginPage = await browser.request('/login');
    const failed = await browser.post('/login', { ...hiddenFields(await loginPage.text()), email: 'keeper@example.test', password: WRONG_PASSWORD });
    assert.equal(failed.status, 401);
    await browser.signIn('keeper@example.test');
    keep('session cookie', browser.cookies.get('folio_session'));

    // Code flow with PKCE, a refresh, the API, token info, introspection and revocation.
    const code = await browser.authorize(client.client_id);
    keep('code', code.code);
    keep('code verifier', code.verifier);
    const issued = await redeemCode(baseUrl, client, code);
    assert.equal(issued.status, 200);
    keep('access token', issued.body.access_token);
    keep('refresh token', issued.body.refresh_token);
    const refreshed = await refresh(baseUrl, client, issued.body.refresh_token!);
    assert.equal(refreshed.status, 200);
    keep('access token', refreshed.body.access_token);
    keep('refresh token', refreshed.body.refresh_token);
    assert.equal(await apiStatus(baseUrl, refreshed.body.access_token!, '/api/v2/portfolios.json'), 200);
    assert.equal(await apiStatus(baseUrl, refreshed.body.access_token!, '/oauth2/token/info'), 200);
    // A client that puts the token in the query string is refused, and the URL is logged.
    assert.equal((await fetch(`${baseUrl}/api/v2/my_user.json?access_token=${refreshed.body.access_token}`)).status, 400);
    const introspected = await fetch(`${baseUrl}/oauth2/introspect`, { method: 'POST', body: new URLSearchParams({ token: refreshed.body.access_token!, ...client }) });
    assert.equal((await introspected.json() as { active: boolean }).active, true);
    const revoked = await fetch(`${baseUrl}/oauth2/revoke`, { method: 'POST', body: new URLSearchParams({ token: issued.body.access_token!, ...client }) });
    assert.equal(revoked.status, 200);
    // A replayed code: the same code is logged about, and its tokens revoked.
    assert.equal((await redeemCode(baseUrl, client, code)).status, 400);

    // The out-of-band code waits, sealed, on the session for the page that shows it.
    const oob = await browser.authorize(client.client_id, OOB);
    keep('oob code', oob.code);
    const oobTokens = await redeemCode(baseUrl, client, oob, OOB);
    assert.equal(oobTokens.status, 200);
    keep('access token', oobTokens.body.access_token);
    keep('refresh token', oobTokens.body.refresh_token);

    const machine = await clientCredentials(baseUrl, client);
    assert.equal(machine.status, 200);
    keep('client credentials token', machine.body.access_token);

    // An application registered on the API settings page: its secret is shown once.
    const form = await browser.request('/settings/applications/new');
    const created = await browser.post('/settings/applications/new', { ...hiddenFields(await form.text()), name: 'Page App', redirect_uris: REDIRECT_URI, client_type: 'confidential' });
    assert.equal(created.status, 303);
    const shown = await (await browser.request(created.headers.get('location')!)).text();
    keep('client secret (page)', /id="client-secret"[^>]*>\s*([^<\s]+)/.exec(shown)?.[1]);

    // Sign-up makes another password and another session.
    const newcomer = new Browser(baseUrl);
    const signUpPage = await newcomer.request('/signup');
    const signedUp = await newcomer.post('/signup', { ...hiddenFields(await signUpPage.text()), name: 'New Comer', email: 'new@example.test', password: SIGN_UP_PASSWORD, confirm: SIGN_UP_PASSWORD });
    assert.equal(signedUp.status, 303);
    keep('session cookie', newcomer.cookies.get('folio_session'));
    const logout = await newcomer.request('/');
    await logout.body?.cancel();

    // Scan while the server runs (the WAL holds the newest pages), then after a clean stop.
    const databaseFiles = () => readdirSync(server.directory).map((name) => join(server.directory, name));
    const running = scan([...databaseFiles(), logFile], secrets);
    const filesWhileRunning = databaseFiles().map((file) => file.split('/').pop()).join(',');
    assert.equal(await server.stop(), 0);
    const stopped = scan([...databaseFiles(), logFile], secrets);
    assert.ok(existsSync(logFile) && readFileSync(logFile, 'utf8').includes('"msg":"request completed"'), 'the log has every request');
    assert.deepEqual([...running.leaks, ...stopped.leaks], []);
    report('secrets-at-rest', {
      secrets_checked: secrets.size, files_scanned: filesWhileRunning, bytes_scanned: running.bytes + stopped.bytes,
      log_lines: readFileSync(logFile, 'utf8').split('\n').length - 1, leaks: 0,
    });
  });
});
