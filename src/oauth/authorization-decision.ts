// What happens to a valid authorization request: sign in, ask for consent, or
// send the code back (RFC 6749 §4.1.2). Consent is remembered per user,
// application and scope; only confidential applications a person registered may
// skip the page (DESIGN §2), since a public client's identity is not proven by its
// redirect, and a client that registered itself is whoever chose to register it.
import { generateCredential, hashCredential } from '../platform/secrets.ts';
import { type AuthorizationCodeStore, type ConsentStore, type GrantStore } from '../storage/stores.ts';
import { ApplicationGoneError } from '../storage/errors.ts';
import type { AuthorizationRequest } from './authorize.ts';
import { OAuthError, type OAuthErrorCode } from './errors.ts';
import { lifetimes } from './lifetimes.ts';
import { OOB_REDIRECT_URI, buildRedirect } from './redirect-uris.ts';
import type { TokenMinter } from './tokens.ts';

/** Where a code or an answer goes: the client's redirect URI, or for the out-of-band URI, Folio's own page. */
export type AuthorizationAnswer =
  | { step: 'redirect'; location: string }
  /** An out-of-band code: shown once to this browser, never carried in a URL. */
  | { step: 'show_code'; code: string };

export type AuthorizationStep = { step: 'sign_in' } | { step: 'consent' } | AuthorizationAnswer;

export interface AuthorizationDecisionDeps extends TokenMinter {
  grants: Pick<GrantStore, 'findOrCreateActiveGrant'>;
  codes: Pick<AuthorizationCodeStore, 'saveAuthorizationCode'>;
  consents: Pick<ConsentStore, 'findConsent' | 'rememberConsent' | 'forgetConsent'>;
  /** RFC 9207 `iss`: the issuer identifier, i.e. FOLIO_BASE_URL. */
  issuer: string;
  /** Where the out-of-band URI's answers are shown. */
  nativeCodePage: string;
}

export async function decideAuthorization(
  request: AuthorizationRequest,
  userId: number | undefined,
  deps: AuthorizationDecisionDeps,
): Promise<AuthorizationStep> {
  // The sign-in page returns to this request without the login prompt (see
  // withoutLoginPrompt), so forcing a fresh sign-in cannot loop. A current session
  // lives until that sign-in replaces it: ending it here would let any site sign
  // a user out with a link, since the request is a plain cross-site GET.
  if (request.prompt.login) return { step: 'sign_in' };
  if (userId === undefined) {
    if (request.prompt.none) throw errorForRequest(request, 'login_required', 'The user is not signed in');
    return { step: 'sign_in' };
  }
  if (await needsConsent(request, userId, deps)) {
    if (request.prompt.none) throw errorForRequest(request, 'consent_required', 'The user has not approved this application');
    return { step: 'consent' };
  }
  return whileRegistered(() => issueCode(request, userId, deps));
}

/**
 * RFC 9700 §4.11.2: the browser is sent to a redirect URI with an error, with no
 * click, only when the user interacted with Folio in this request (the consent
 * form) or has approved the application before. Otherwise anyone could register
 * an application and use a Folio link to bounce visitors to any address; the
 * error is shown on a page whose link continues to the application.
 */
export async function mayRedirectWithoutAsking(applicationId: number, userId: number | undefined, deps: Pick<AuthorizationDecisionDeps, 'consents'>): Promise<boolean> {
  return userId !== undefined && (await deps.consents.findConsent(userId, applicationId)) !== undefined;
}

/** The request's parameters with prompt=login and prompt_login removed: where sign-in returns to. */
export function withoutLoginPrompt(params: Readonly<Record<string, string>>): Record<string, string> {
  const { prompt_login: _forced, prompt, ...rest } = params;
  const remaining = (prompt ?? '').split(' ').filter((value) => value !== '' && value !== 'login');
  return remaining.length > 0 ? { ...rest, prompt: remaining.join(' ') } : rest;
}

/** The user's answer on the consent page. Returns where to send the browser. */
export async function answerConsent(
  request: AuthorizationRequest,
  userId: number,
  approved: boolean,
  ip: string | null,
  deps: AuthorizationDecisionDeps,
): Promise<AuthorizationAnswer> {
  const now = deps.clock.now();
  const event = { userId, applicationId: request.application.id, ip, detail: { scope: request.scope.join(' ') }, createdAt: now };
  if (!approved) {
    // The latest answer is the one remembered: a denial withdraws an earlier approval.
    await whileRegistered(() => deps.consents.forgetConsent(userId, request.application.id, { type: 'consent.denied', ...event }));
    // The out-of-band URI has no address: Folio's own page says so, after the usual 303.
    if (request.redirectUri === OOB_REDIRECT_URI) return { step: 'redirect', location: buildRedirect(deps.nativeCodePage, { error: 'access_denied' }) };
    return { step: 'redirect', location: errorLocation(errorForRequest(request, 'access_denied', 'The user denied the request'), deps) };
  }
  return whileRegistered(async () => {
    await deps.consents.rememberConsent(userId, request.application.id, request.scope, now, { type: 'consent.granted', ...event });
    return issueCode(request, userId, deps);
  });
}

/** The redirect for an error whose redirect URI is verified (OAuthError.redirectTo set). */
export function errorLocation(error: OAuthError, deps: Pick<AuthorizationDecisionDeps, 'issuer'>): string {
  if (error.redirectTo === undefined) throw error;
  const { redirectUri, state } = error.redirectTo;
  return buildRedirect(redirectUri, { error: error.code, error_description: error.description, state, iss: deps.issuer });
}

/**
 * An error about a verified request goes back to its redirect URI, with its
 * state (RFC 6749 §4.1.2.1); the out-of-band URI has no address a browser can
 * go to, so there the error is shown on a page (errorLocation throws it).
 */
export function errorForRequest(request: AuthorizationRequest, code: OAuthErrorCode, description: string): OAuthError {
  const error = new OAuthError(code, description);
  if (request.redirectUri === OOB_REDIRECT_URI) return error;
  return error.withRedirect({ redirectUri: request.redirectUri, state: request.state, application: request.application });
}

/**
 * The application was deleted after its request was verified: its client_id is no
 * longer valid nor its redirect URI registered, so the error is shown to the user and
 * the browser goes nowhere (RFC 6749 §4.1.2.1), as for an unknown client_id.
 */
async function whileRegistered<T>(answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof ApplicationGoneError) throw new OAuthError('invalid_request', 'The application was deleted by its developer');
    throw error;
  }
}

async function needsConsent(request: AuthorizationRequest, userId: number, deps: AuthorizationDecisionDeps): Promise<boolean> {
  const { application } = request;
  if (request.prompt.consent || !application.confidential || application.registration !== 'person') return true;
  const consent = await deps.consents.findConsent(userId, request.application.id);
  return consent === undefined || !request.scope.every((scope) => consent.scope.includes(scope));
}

async function issueCode(request: AuthorizationRequest, userId: number, deps: AuthorizationDecisionDeps): Promise<AuthorizationAnswer> {
  const now = deps.clock.now();
  const { application } = request;
  const grant = await deps.grants.findOrCreateActiveGrant(userId, application.id, request.scope, now);
  const code = generateCredential('authorizationCode', deps.random, now);
  await deps.codes.saveAuthorizationCode({
    codeHash: hashCredential(code),
    grantId: grant.id,
    applicationId: application.id,
    userId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    createdAt: now,
    expiresAt: now + lifetimes.authorizationCode,
    consumedAt: null,
  });
  if (request.redirectUri === OOB_REDIRECT_URI) return { step: 'show_code', code };
  return { step: 'redirect', location: buildRedirect(request.redirectUri, { code, state: request.state, iss: deps.issuer }) };
}
