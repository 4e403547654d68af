// A real Folio on 127.0.0.1 (its base URL is its real address, so issuer checks
// hold) and a browser with a cookie jar that signs in and approves over HTTP.
import {
  type TestApp, type TestClient, PASSWORD, createClient, createPortfolio, createTestApp, createUser,
} from '../support/app.ts';
import { freePort } from '../support/server-process.ts';
import type { User } from '../../src/domain/records.ts';

export const REDIRECT_URI = 'https://client.example/callback';

export interface LiveFolio {
  t: TestApp;
  issuer: string;
  user: User;
  confidential: TestClient;
  publicClient: TestClient;
}

export async function startFolio(): Promise<LiveFolio> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ FOLIO_BASE_URL: issuer });
  await t.app.listen({ host: '127.0.0.1', port });
  const user = await createUser(t);
  await createPortfolio(t, user, 'Interop Fund');
  const confidential = await createClient(t, user, { name: 'Interop Server', redirectUris: [REDIRECT_URI] });
  const publicClient = await createClient(t, user, { name: 'Interop SPA', confidential: false, redirectUris: [REDIRECT_URI] });
  return { t, issuer, user, confidential, publicClient };
}

const hiddenFields = (html: string) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)]
  .map((match) => [match[1]!, match[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>')]));

/** Follows the authorization URL as a person would: sign in, approve; returns the callback URL. */
export async function approveInBrowser(folio: LiveFolio, authorizationUrl: URL): Promise<URL> {
  const cookies = new Map<string, string>();
  async function request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(new URL(url, folio.issuer), { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0]!.split('=') as [string, string];
      if (value === '') cookies.delete(name); else cookies.set(name, value);
    }
    return response;
  }
  const post = (url: string, fields: Record<string, string>) => request(url, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const expect = (response: Response, status: number) => {
    if (response.status !== status) throw new Error(`${response.url || 'request'} answered ${response.status}, expected ${status}`);
    return response;
  };

  const toLogin = expect(await request(authorizationUrl.href), 302).headers.get('location')!;
  const loginPage = await expect(await request(toLogin), 200).text();
  const signedIn = expect(await post('/login', { ...hiddenFields(loginPage), email: folio.user.email, password: PASSWORD }), 303);
  const consent = await request(signedIn.headers.get('location')!);
  if (consent.status === 302) return new URL(consent.headers.get('location')!);
  const consentPage = await expect(consent, 200).text();
  const approved = expect(await post('/oauth2/authorize', { ...hiddenFields(consentPage), decision: 'approve' }), 303);
  return new URL(approved.headers.get('location')!);
}
