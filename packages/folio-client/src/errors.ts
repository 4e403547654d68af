/** The authorization server refused a token request (RFC 6749 §5.2). */
export class FolioOAuthError extends Error {
  constructor(
    /** The RFC error code, e.g. invalid_grant, invalid_client. */
    readonly error: string,
    readonly description: string | undefined,
    readonly status: number,
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
