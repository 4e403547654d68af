// The one error type of Folio. It knows its RFC code, its HTTP status and
// whether it may be sent to the client's redirect URI; renderers in src/http
// turn it into a JSON body, a redirect or an HTML page.

export type OAuthErrorCode =
  // RFC 6749 §4.1.2.1 and §5.2
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  // OpenID Connect Core §3.1.2.6 (prompt=none)
  | 'login_required'
  | 'consent_required'
  // RFC 6750 §3.1
  | 'invalid_token'
  | 'insufficient_scope'
  // RFC 7009 §2.2.1
  | 'unsupported_token_type'
  // RFC 7591 §3.2.2
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  // RFC 8707 §2
  | 'invalid_target'
  // plain HTTP conditions, rendered in the same shape
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'rate_limited';

const statusByCode: Partial<Record<OAuthErrorCode, number>> = {
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  rate_limited: 429,
  server_error: 500,
  temporarily_unavailable: 503,
};

/** Where an authorization-endpoint error is sent: a verified redirect URI, the request's state, and whose URI it is. */
export interface ErrorRedirect {
  redirectUri: string;
  state: string | undefined;
  application: { id: number; name: string };
}

export interface OAuthErrorOptions {
  /**
   * Set only once the client and redirect URI are verified. Without it an
   * authorization error is shown on a page, never redirected (RFC 6749 §4.1.2.1).
   */
  redirectTo?: ErrorRedirect;
  /** Private detail for logs; never sent to the client. */
  cause?: unknown;
}

/**
 * RFC 6749 §4.1.2.1 and §5.2: error_description holds only %x20-21 / %x23-5B /
 * %x5D-7E, so no double quote, no backslash and nothing outside printable ASCII,
 * even where a description quotes what the client sent.
 */
function asErrorDescription(text: string): string {
  return text.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7E]/g, '?');
}

export class OAuthError extends Error {
  readonly redirectTo: ErrorRedirect | undefined;
  readonly description: string;

  constructor(
    readonly code: OAuthErrorCode,
    description: string,
    options: OAuthErrorOptions = {},
  ) {
    const allowed = asErrorDescription(description);
    super(`${code}: ${allowed}`, { cause: options.cause });
    this.name = 'OAuthError';
    this.description = allowed;
    this.redirectTo = options.redirectTo;
  }

  withRedirect(redirectTo: ErrorRedirect): OAuthError {
    return new OAuthError(this.code, this.description, { redirectTo, cause: this.cause });
  }

  get status(): number {
    return statusByCode[this.code] ?? 400;
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

/** Anything that is not an OAuthError becomes server_error with no detail leaked. */
export function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  return new OAuthError('server_error', 'The server could not complete the request', { cause: error });
}
