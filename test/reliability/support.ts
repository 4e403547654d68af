// What the reliability tests share: a browser over real HTTP, the OAuth flows a
// consumer application runs, a TCP proxy that can cut a database off, and a
// throwaway PostgreSQL database.
import { HttpBrowser, hiddenFields } from '../support/http-browser.ts';
import { TemporaryPostgresDatabase as SharedTemporaryDatabase } from '../support/postgres-database.ts';
import { execFileSync } from 'node:child_process';
import { type Server, type Socket, createConnection, createServer } from 'node:net';

export const PASSWORD = 'reliability-password';
export const REDIRECT_URI = 'https://client.example/callback';

export interface RegisteredClient {
  client_id: string;
  client_secret: string;
}

/** Runs a CLI verb against `databaseUrl` (for a server whose own URL goes through a proxy in this process). */
export function folioAt(databaseUrl: string, ...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: new URL('../../', import.meta.url).pathname, encoding: 'utf8',
    env: { ...process.env, FOLIO_DATABASE_URL: databaseUrl, FOLIO_LOG_LEVEL: 'warn', FOLIO_ENV: 'test' },
  });
}

/** Prints one line of figures, so every run shows what was proved and on how much. */
export function report(title: string, figures: Record<string, unknown>): void {
  console.log(`[reliability] ${title}: ${Object.entries(figures).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ')}`);
}

/** The shared HttpBrowser with this suite's password and redirect URI as defaults. */
export class Browser extends HttpBrowser {
  override signIn(email: string, password = PASSWORD): Promise<void> {
    return super.signIn(email, password);
  }

  override authorize(clientId: string, redirectUri = REDIRECT_URI) {
    return super.authorize(clientId, redirectUri);
  }
}

export { hiddenFields };

export interface TokenAnswer {
  status: number;
  body: { access_token?: string; refresh_token?: string; error?: string };
}

export async function tokenRequest(baseUrl: string, fields: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', body: new URLSearchParams(fields) });
  const text = await response.text();
  let body: TokenAnswer['body'] = {};
  try {
    body = JSON.parse(text) as TokenAnswer['body'];
  } catch { /* not JSON: the caller looks at the status */ }
  return { status: response.status, body };
}

export const clientCredentials = (baseUrl: string, client: RegisteredClient) =>
  tokenRequest(baseUrl, { grant_type: 'client_credentials', ...client });

export const redeemCode = (baseUrl: string, client: RegisteredClient, code: { code: string; verifier: string }, redirectUri = REDIRECT_URI) =>
  tokenRequest(baseUrl, { grant_type: 'authorization_code', code: code.code, code_verifier: code.verifier, redirect_uri: redirectUri, ...client });

export const refresh = (baseUrl: string, client: RegisteredClient, refreshToken: string) =>
  tokenRequest(baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, ...client });

/** The API status a bearer token gets. */
export async function apiStatus(baseUrl: string, accessToken: string, path = '/api/v2/my_user.json'): Promise<number> {
  const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${accessToken}` } });
  await response.body?.cancel();
  return response.status;
}

/**
 * A TCP proxy in front of a database: cut() drops every connection and stops
 * listening (the database "goes away"), stall() keeps connections open but
 * forwards nothing (a network that swallows packets), restore() listens again
 * on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<number> {
    this.stalled = false;
    const server = createServer((client) => {
      this.track(client);
      if (this.stalled) return;
      const upstream = createConnection(this.target);
      this.track(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => { client.destroy(); upstream.destroy(); };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = server === undefined ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    this.destroyAll();
    await closed;
  }

  /** Existing connections stop forwarding; new ones are accepted and left silent. */
  stall(): void {
    this.stalled = true;
    for (const socket of this.sockets) socket.pause();
    for (const socket of this.sockets) socket.unpipe();
  }

  async restore(): Promise<void> {
    await this.cut();
    await this.open();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}

/** Reliability tests name their throwaway databases folio_rel_*. */
export class TemporaryPostgresDatabase extends SharedTemporaryDatabase {
  constructor(serverUrl: string) {
    super(serverUrl, 'folio_rel');
  }
}

/** Resolves after `ms`; reliability tests run against real processes and real time. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
