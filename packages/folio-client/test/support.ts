// A real Folio over real HTTP for the SDK tests, and a fetch that counts token requests.
import type { AddressInfo } from 'node:net';
import {
  type TestApp, type TestClient, approve, createClient, createPortfolio, createTestApp, createUser, signIn,
} from '../../../test/support/app.ts';
import type { User } from '../../../src/domain/records.ts';

export interface LiveFolio {
  t: TestApp;
  url: string;
  user: User;
  confidential: TestClient;
  publicClient: TestClient;
}

export async function startFolio(env: Record<string, string> = {}): Promise<LiveFolio> {
  const t = await createTestApp(env);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  const user = await createUser(t);
  await createPortfolio(t, user, 'Retirement');
  await createPortfolio(t, user, 'Trading');
  const confidential = await createClient(t, user, { name: 'Server App' });
  const publicClient = await createClient(t, user, { name: 'Mobile App', confidential: false });
  return { t, url: `http://127.0.0.1:${port}`, user, confidential, publicClient };
}

/** Signs the user in and approves `authorizationUrl`; returns the callback's query. */
export async function approveInBrowser(folio: LiveFolio, authorizationUrl: string): Promise<URLSearchParams> {
  const jar = await signIn(folio.t, folio.user);
  const url = new URL(authorizationUrl);
  return (await approve(folio.t, jar, url.pathname + url.search)).searchParams;
}

export interface CountingFetch {
  fetch: typeof fetch;
  grants: string[];
}

/** Records the grant_type of every token request that goes out. */
export function countingFetch(): CountingFetch {
  const grants: string[] = [];
  const counting: typeof fetch = async (input, init) => {
    if (String(input).endsWith('/oauth2/token') && init?.body instanceof URLSearchParams) grants.push(init.body.get('grant_type') ?? '');
    return fetch(input, init);
  };
  return { fetch: counting, grants };
}
