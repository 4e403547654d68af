/** Tokens as the client keeps them; `expiresAt` is in milliseconds on the client's own clock. */
export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  /** How they were obtained; client_credentials tokens are renewed by asking again. */
  grantType: 'authorization_code' | 'client_credentials' | 'refresh_token';
}

/** Where tokens live between calls: memory by default; a database or keychain in real applications. */
export interface TokenStorage {
  get(): Promise<StoredTokens | undefined>;
  set(tokens: StoredTokens): Promise<void>;
  clear(): Promise<void>;
}

export class MemoryTokenStorage implements TokenStorage {
  private tokens: StoredTokens | undefined;
  async get(): Promise<StoredTokens | undefined> {
    return this.tokens;
  }
  async set(tokens: StoredTokens): Promise<void> {
    this.tokens = tokens;
  }
  async clear(): Promise<void> {
    this.tokens = undefined;
  }
}
