// Signed-in page requests for HTTP tests: GET with the session cookie, POST a form
// with it, and read what a page shows.
import { hiddenField, cookieHeader, type TestApp } from './app.ts';

export type Jar = Record<string, string>;

export const getPage = (t: TestApp, jar: Jar, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(jar) } });

export function postForm(t: TestApp, jar: Jar, url: string, fields: Record<string, string>) {
  return t.app.inject({
    method: 'POST', url, payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
  });
}

/** The CSRF token a signed-in page's forms carry. */
export async function csrfToken(t: TestApp, jar: Jar, url = '/settings/applications'): Promise<string> {
  const page = await getPage(t, jar, url);
  if (page.statusCode !== 200) throw new Error(`${url} answered ${page.statusCode}`);
  return hiddenField(page.body, 'csrf_token');
}

/** Text of the element with this id, tags stripped and entities left as they are. */
export function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return match?.[1]?.trim();
}
