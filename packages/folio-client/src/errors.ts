/** The authorization server refused a token request (RFC 6749 §5.2). */
export class FolioOAuthError extends Error {
  constructor(
    /** The RFC error code, e.g. invalid_grant, invalid_client. */
    readonly error: string,
    readonly description: string | undefined,
    readonly status: number,
    /** Seconds to wait before trying again, when the answer said (503 temporarily_unavailable). */
    readonly retryAfter?: number,
  ) {
    super(description === undefined ? error : `${error}: ${description}`);
    this.name = 'FolioOAuthError';
  }
}

/** An /api/v2 call failed; `error` is the RFC 6750 / Folio error code when the body had one. */
export class FolioApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
    readonly description: string | undefined,
    /** Seconds to wait before trying again, when the answer said (429 rate_limited, 503). */
    readonly retryAfter?: number,
  ) {
    super(`HTTP ${status}${error === undefined ? '' : ` ${error}`}${description === undefined ? '' : `: ${description}`}`);
    this.name = 'FolioApiError';
  }
}

/** Reads `{error, error_description}` from a failed response, if it has that shape. */
export async function readErrorBody(response: Response): Promise<{ error?: string; error_description?: string }> {
  try {
    const body = await response.json() as Record<string, unknown>;
    return {
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
      ...(typeof body.error_description === 'string' ? { error_description: body.error_description } : {}),
    };
  } catch {
    return {};
  }
}

/** RFC 9110 §10.2.3 Retry-After, as seconds from now: delay-seconds or an HTTP date. */
export function retryAfterOf(response: Response, now: number = Date.now()): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
