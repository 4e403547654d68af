import type { AuthenticatedClient } from '../client-authentication.ts';
import type { TokenResponse } from '../tokens.ts';

/** A token request after parsing, duplicate checks and client authentication. */
export interface TokenRequest {
  client: AuthenticatedClient;
  /** Every body parameter, each given once (duplicates are refused before dispatch). */
  params: Readonly<Record<string, string>>;
  ip: string | null;
  /** The RFC 8707 resource the request names, as Folio spells it (resources.ts); null when it names none. */
  resource: string | null;
}

/** One grant type (RFC 6749 §4). The token endpoint dispatches on `grantType`. */
export interface GrantHandler {
  readonly grantType: string;
  /** Parameters that must be present; checked before `handle` in the order given. */
  readonly requiredParams: readonly string[];
  /** Public clients may not use every grant (client_credentials needs a secret). */
  readonly confidentialOnly: boolean;
  handle(request: TokenRequest): Promise<TokenResponse>;
}
