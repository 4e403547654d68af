export { FolioClient, type AuthorizationRequest, type FolioClientOptions } from './client.ts';
export { FolioApiError, FolioOAuthError } from './errors.ts';
export { generatePkce, pkceChallenge } from './pkce.ts';
export { MemoryTokenStorage, type StoredTokens, type TokenStorage } from './storage.ts';
export type { MyUser, OnePortfolio, Portfolio, PortfolioList, TokenInfo, TokenResponse } from './types.ts';
