// FolioClient: the OAuth flows and typed /api/v2 calls, with tokens refreshed
// before they expire and after a 401 invalid_token, one refresh at a time.
import { FolioApiError, FolioOAuthError, readErrorBody, retryAfterOf } from './errors.ts';
import { generatePkce, randomToken } from './pkce.ts';
import { MemoryTokenStorage, type StoredTokens, type TokenStorage } from './storage.ts';
import { type ClientCredentials, requestTokens, revokeToken } from './token-endpoint.ts';
import type { MyUser, OnePortfolio, PortfolioList, TokenInfo, TokenResponse } from './types.ts';

export interface FolioClientOptions {
  /** Folio's base URL (its issuer), e.g. https://folio.example. */
  baseUrl: string;
  clientId: string;
  /** Confidential applications only. */
  clientSecret?: string;
  /** Default redirect URI for authorizationUrl and exchangeCode. */
  redirectUri?: string;
  storage?: TokenStorage;
  fetch?: typeof fetch;
  /** Refresh this many seconds before the access token expires (default 60). */
  refreshSkewSeconds?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

export interface AuthorizationRequest {
  url: string;
  state: string;
  /** Keep with `state` (e.g. in the user's session) until the callback; exchangeCode needs it. */
  codeVerifier: string;
}

export class FolioClient {
  readonly storage: TokenStorage;
  private readonly credentials: ClientCredentials;
  private readonly now: () => number;
  private readonly skewMs: number;
  private refreshing: Promise<StoredTokens> | undefined;

  constructor(private readonly options: FolioClientOptions) {
    this.storage = options.storage ?? new MemoryTokenStorage();
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.credentials = { baseUrl: options.baseUrl.replace(/\/+$/, ''), clientId: options.clientId, clientSecret: options.clientSecret, fetch: fetchImpl };
    this.now = options.now ?? Date.now;
    this.skewMs = (options.refreshSkewSeconds ?? 60) * 1000;
  }

  /** Step 1 of the authorization code flow: where to send the browser (always with PKCE S256). */
  async authorizationUrl(request: { state?: string; redirectUri?: string; scope?: string; prompt?: 'login' | 'consent' | 'none' } = {}): Promise<AuthorizationRequest> {
    const state = request.state ?? randomToken();
    const { codeVerifier, codeChallenge } = await generatePkce();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: this.redirectUri(request.redirectUri),
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    });
    if (request.scope !== undefined) params.set('scope', request.scope);
    if (request.prompt !== undefined) params.set('prompt', request.prompt);
    return { url: `${this.credentials.baseUrl}/oauth2/authorize?${params}`, state, codeVerifier };
  }

  /** Step 2: the code from the callback (check its `state` first) for tokens, which are stored. */
  async exchangeCode(request: { code: string; codeVerifier: string; redirectUri?: string }): Promise<TokenResponse> {
    const response = await requestTokens(this.credentials, {
      grant_type: 'authorization_code', code: request.code, redirect_uri: this.redirectUri(request.redirectUri), code_verifier: request.codeVerifier,
    });
    await this.store(response, 'authorization_code');
    return response;
  }

  /** Tokens for the account that registered the application (confidential applications only). */
  async clientCredentials(scope?: string): Promise<TokenResponse> {
    const response = await requestTokens(this.credentials, scope === undefined ? { grant_type: 'client_credentials' } : { grant_type: 'client_credentials', scope });
    await this.store(response, 'client_credentials');
    return response;
  }

  /** A new access token now. Concurrent callers share one request: a refresh token works once. */
  refresh(): Promise<StoredTokens> {
    return this.replace(undefined);
  }

  /** A live access token, refreshed first when it expires within the skew. */
  async accessToken(): Promise<string> {
    if (this.refreshing !== undefined) return (await this.refreshing).accessToken;
    const tokens = await this.storage.get();
    if (tokens === undefined) throw new FolioOAuthError('no_tokens', 'Run an authorization flow first', 0);
    if (!this.isFresh(tokens)) return (await this.replace(tokens.accessToken)).accessToken;
    return tokens.accessToken;
  }

  listPortfolios(): Promise<PortfolioList> {
    return this.get('/api/v2/portfolios.json');
  }

  getPortfolio(id: number): Promise<OnePortfolio> {
    return this.get(`/api/v2/portfolios/${encodeURIComponent(String(id))}.json`);
  }

  myUser(): Promise<MyUser> {
    return this.get('/api/v2/my_user.json');
  }

  tokenInfo(): Promise<TokenInfo> {
    return this.get('/oauth2/token/info');
  }

  /** Revokes the stored refresh token (or access token) and forgets them. */
  async signOut(): Promise<void> {
    const tokens = await this.storage.get();
    if (tokens !== undefined) {
      await revokeToken(this.credentials, tokens.refreshToken ?? tokens.accessToken, tokens.refreshToken === undefined ? 'access_token' : 'refresh_token');
    }
    await this.storage.clear();
  }

  /** GET with the bearer token; on 401 invalid_token, refresh and retry once. */
  async get<T>(path: string): Promise<T> {
    const used = await this.accessToken();
    let response = await this.send(path, used);
    if (response.status === 401 && /error="invalid_token"/.test(response.headers.get('www-authenticate') ?? '')) {
      await response.body?.cancel();
      response = await this.send(path, (await this.replace(used)).accessToken);
    }
    if (!response.ok) {
      const body = await readErrorBody(response);
      throw new FolioApiError(response.status, body.error, body.error_description, retryAfterOf(response));
    }
    return await response.json() as T;
  }

  private send(path: string, accessToken: string): Promise<Response> {
    return this.credentials.fetch(`${this.credentials.baseUrl}${path}`, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  }

  /** Single flight: every caller shares the one renewal in progress. */
  private replace(stale: string | undefined): Promise<StoredTokens> {
    this.refreshing ??= this.renew(stale).finally(() => { this.refreshing = undefined; });
    return this.refreshing;
  }

  /**
   * `stale` is the access token the caller found expired or rejected. If storage
   * already holds another, fresh one, a renewal finished after the caller looked:
   * use it rather than spend the (now rotated) refresh token again.
   */
  private async renew(stale: string | undefined): Promise<StoredTokens> {
    const tokens = await this.storage.get();
    if (stale !== undefined && tokens !== undefined && tokens.accessToken !== stale && this.isFresh(tokens)) return tokens;
    if (tokens?.refreshToken !== undefined) {
      const response = await requestTokens(this.credentials, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken })
        .catch((error: unknown) => this.forgetRefused(tokens.refreshToken!, error));
      return this.store(response, 'refresh_token');
    }
    if (tokens?.grantType === 'client_credentials') return this.store(await requestTokens(this.credentials, { grant_type: 'client_credentials' }), 'client_credentials');
    throw new FolioOAuthError('no_tokens', 'No refresh token to renew the access token with; run an authorization flow again', 0);
  }

  /**
   * A refresh refused with invalid_grant will never work (the user revoked the
   * application, or the authorization was revoked): the stored tokens are
   * forgotten, so later calls fail at once with no_tokens instead of asking again
   * each time. Unless storage meanwhile holds other tokens, from another process.
   */
  private async forgetRefused(refreshToken: string, error: unknown): Promise<never> {
    if (error instanceof FolioOAuthError && error.error === 'invalid_grant' && (await this.storage.get())?.refreshToken === refreshToken) {
      await this.storage.clear();
    }
    throw error;
  }

  private async store(response: TokenResponse, grantType: StoredTokens['grantType']): Promise<StoredTokens> {
    // Expiry on our own clock from expires_in: created_at is the server's clock, which may differ.
    const tokens: StoredTokens = { accessToken: response.access_token, expiresAt: this.now() + response.expires_in * 1000, grantType };
    if (response.refresh_token !== undefined) tokens.refreshToken = response.refresh_token;
    await this.storage.set(tokens);
    return tokens;
  }

  private isFresh(tokens: StoredTokens): boolean {
    return tokens.expiresAt - this.skewMs > this.now();
  }

  private redirectUri(explicit: string | undefined): string {
    const uri = explicit ?? this.options.redirectUri;
    if (uri === undefined) throw new TypeError('redirectUri is required (in the options or the call)');
    return uri;
  }
}
