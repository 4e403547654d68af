// A browser in miniature for tests that drive the real server over HTTP.
import { createHash, randomBytes } from 'node:crypto';

/** What a browser does for the tests that drive the real server: a cookie jar for one origin, forms, sign-in and consent. */
export class HttpBrowser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly baseUrl: string) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(path.startsWith('http') ? path : this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (value === '') this.cookies.delete(name!); else this.cookies.set(name!, value!);
    }
    return response;
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  async signIn(email: string, password: string): Promise<void> {
    const page = await this.request('/login');
    const answer = await this.post('/login', { ...hiddenFields(await page.text()), email, password });
    if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`);
    await answer.body?.cancel();
  }

  /** Authorization request with PKCE, approving the consent page if one is shown; the code and verifier. */
  async authorize(clientId: string, redirectUri: string): Promise<{ code: string; verifier: string; location: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
    let answer = await this.request(`/oauth2/authorize?${query}`);
    if (answer.status === 200) {
      answer = await this.post('/oauth2/authorize', { ...hiddenFields(await answer.text()), decision: 'approve' });
    } else {
      await answer.body?.cancel();
    }
    const location = answer.headers.get('location');
    let code = location === null ? null : new URL(location).searchParams.get('code');
    if (location !== null && new URL(location).pathname === '/oauth2/authorize/native') {
      // The out-of-band code is shown once on Folio's own page, to this browser.
      const page = await (await this.request('/oauth2/authorize/native')).text();
      code = /<p class="secret" id="code"[^>]*>([^<]+)<\/p>/.exec(page)?.[1] ?? null;
    }
    if (code === null || location === null) throw new Error(`authorization answered ${answer.status} ${location ?? ''}`);
    return { code, verifier, location };
  }
}

export const hiddenFields = (html: string): Record<string, string> => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)]
  .map((match) => [match[1]!, match[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'")]));
