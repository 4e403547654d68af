// End to end in a real browser (Debian's Chromium driven by playwright-core):
// sign in, register an application on the API settings page, run the
// authorization-code flow through consent, revoke the application on the
// connected-applications page, and see the API refuse its token; and see the API
// docs render. Every page visited is saved as a screenshot under
// .tmp/screenshots/ for people to look at.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import { type ServerProcess, freePort, startServerProcess } from '../support/server-process.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = new URL('../../.tmp/screenshots/', import.meta.url).pathname;
const PASSWORD = 'browser-test-password';
const OOB = 'urn:ietf:wg:oauth:2.0:oob';
// Flags for a sandboxed root CI machine without network access beyond loopback.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (.ci/run installs it)`;

describe('in a real browser', { skip }, () => {
  let server: ServerProcess;
  let browser: Browser;
  let callbackServer: Server;
  let callbackUrl: string;

  async function shoot(page: Page, name: string, width = 1200): Promise<void> {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
  }

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startServerProcess((folio) => {
      folio('user', 'create', '--email', 'ada@example.test', '--password', PASSWORD, '--name', 'Ada Lovelace');
      folio('portfolio', 'create', '--owner', 'ada@example.test', '--name', 'Retirement', '--currency', 'AUD', '--country', 'AU');
    });
    // The consumer application's callback: a loopback page the browser lands on with the code.
    const port = await freePort();
    callbackUrl = `http://127.0.0.1:${port}/callback`;
    callbackServer = createServer((_request, response) => response.end('<!doctype html><title>Client</title><p>Back at the client.</p>'));
    await new Promise<void>((resolve) => callbackServer.listen(port, '127.0.0.1', resolve));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    callbackServer?.close();
    server?.cleanup();
  });

  it('registers an application, authorizes it through consent, revokes it, and the API refuses its token', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(`${server.baseUrl}/login`);
    await shoot(page, '01-sign-in');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/portfolios/);
    await shoot(page, '02-portfolios');

    await page.goto(`${server.baseUrl}/settings/applications/new`);
    await shoot(page, '03-register-application');
    await page.getByLabel('Name').fill('Browser Test App');
    await page.getByLabel('Redirect URIs').fill(`${callbackUrl}\n${OOB}`);
    await page.getByLabel(/Confidential/).check();
    await page.getByRole('button', { name: 'Register application' }).click();
    const clientId = (await page.locator('#client-id').textContent())!.trim();
    const clientSecret = (await page.locator('#client-secret').textContent())!.trim();
    assert.match(clientSecret, /^folio_cs_/);
    await shoot(page, '04-application-created');

    const authorize = `${server.baseUrl}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: callbackUrl, state: 'browser' })}`;
    await page.goto(authorize);
    await page.getByRole('heading', { name: /Connect/ }).waitFor();
    await shoot(page, '05-consent');
    await page.getByRole('button', { name: 'Allow access' }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/);
    const callback = new URL(page.url());
    assert.equal(callback.searchParams.get('state'), 'browser');
    assert.equal(callback.searchParams.get('iss'), server.baseUrl);

    const exchange = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: callbackUrl, client_id: clientId, client_secret: clientSecret }),
    });
    assert.equal(exchange.status, 200);
    const { access_token: accessToken } = await exchange.json() as { access_token: string };
    const api = () => fetch(`${server.baseUrl}/api/v2/portfolios.json`, { headers: { authorization: `Bearer ${accessToken}` } });
    assert.equal((await api()).status, 200);

    // Out of band: the code is shown once on Folio's page, whole, with a Copy button that works.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await page.goto(`${server.baseUrl}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: OOB })}`);
    await page.waitForURL(/\/oauth2\/authorize\/native$/);
    await page.setViewportSize({ width: 390, height: 800 });
    await shoot(page, '14-out-of-band-code', 390);
    const codeBox = (await page.locator('#code').boundingBox())!;
    const cardBox = (await page.locator('section.card').boundingBox())!;
    assert.ok(codeBox.x + codeBox.width <= cardBox.x + cardBox.width, 'the code fits in its card');
    await page.getByRole('button', { name: 'Copy code' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const oobCode = (await page.locator('#code').textContent())!.trim();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), oobCode);
    const oobExchange = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: oobCode, redirect_uri: OOB, client_id: clientId, client_secret: clientSecret }),
    });
    assert.equal(oobExchange.status, 200);

    await page.goto(`${server.baseUrl}/settings/connections`);
    await shoot(page, '06-connected-applications');
    await page.getByRole('button', { name: /Revoke access of Browser Test App/ }).click();
    await page.waitForLoadState();
    await shoot(page, '07-connection-revoked');
    const refused = await api();
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);

    await page.goto(`${server.baseUrl}/activity`);
    await shoot(page, '08-activity');
    await page.goto(`${server.baseUrl}/settings/applications`);
    await shoot(page, '09-api-settings');
    await page.goto(`${server.baseUrl}/portfolios`);
    await shoot(page, '10-portfolios-phone', 390);
    await page.goto(`${server.baseUrl}/portfolios/new`);
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: /Create portfolio/ }).click();
    await page.locator('[aria-invalid="true"]').first().waitFor();
    await shoot(page, '11-portfolio-form-errors');
    await page.goto(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fevil.example%2F`);
    await shoot(page, '12-authorization-error');
    await context.close();

    const visitor = await browser.newContext();
    const signUp = await visitor.newPage();
    await signUp.goto(`${server.baseUrl}/signup`);
    await shoot(signUp, '13-sign-up');
    await visitor.close();
  });

  it('shows the API docs: Swagger UI renders the OpenAPI document under the site-wide CSP', async () => {
    const context = await browser.newContext();
    // Reported by the page itself, before any of its scripts run.
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('response', (response) => { if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`); });

    await page.goto(`${server.baseUrl}/api/v2/docs`);
    await page.locator('.swagger-ui .info .title', { hasText: 'Folio API' }).waitFor();
    await page.locator('.opblock-summary-path', { hasText: '/oauth2/token' }).first().waitFor();
    await shoot(page, '15-api-docs');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), []);
    assert.deepEqual(failed, []);
    await context.close();
  });
});
