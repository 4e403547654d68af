// GET/POST /oauth2/authorize and the out-of-band code page (RFC 6749 §4.1.1–4.1.2).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuthorizationDecisionDeps, answerConsent, decideAuthorization, errorForRequest, errorLocation, withoutLoginPrompt } from '../../oauth/authorization-decision.ts';
import { type AuthorizationRequest, validateAuthorizationRequest } from '../../oauth/authorize.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import { OOB_REDIRECT_URI } from '../../oauth/redirect-uris.ts';
import { isWellFormedCredential } from '../../platform/secrets.ts';
import type { ApplicationStore, UserStore } from '../../storage/stores.ts';
import { renderConsentPage } from '../../web/consent-page.ts';
import { renderNativeCodePage } from '../../web/native-code-page.ts';
import { classifyError, refuseOtherMethods } from '../errors.ts';
import { type Params, repeatedParamsOf } from '../form-body.ts';
import type { Sessions } from '../sessions.ts';
import { MAX_RETURN_PATH } from './sign-in.ts';

export interface AuthorizeRouteDeps extends AuthorizationDecisionDeps {
  applications: Pick<ApplicationStore, 'findApplicationByClientId' | 'findApplicationById'>;
  users: Pick<UserStore, 'findUserById'>;
  sessions: Sessions;
}

const FORM_ONLY_FIELDS = new Set(['csrf_token', 'decision']);

export function registerAuthorize(app: FastifyInstance, deps: AuthorizeRouteDeps): void {
  const html = { html: true };

  /**
   * Errors about a verified request go back to the client (RFC 6749 §4.1.2.1),
   * unexpected ones too, as server_error or temporarily_unavailable. The rest (an
   * unknown client or redirect URI, or the out-of-band URI) are shown on a page.
   */
  async function redirectOrRethrow(
    request: FastifyRequest, reply: FastifyReply, error: unknown, status: 302 | 303, verified: AuthorizationRequest | undefined,
  ): Promise<FastifyReply> {
    if (error instanceof OAuthError && error.redirectTo !== undefined) return reply.redirect(errorLocation(error, deps), status);
    if (verified === undefined || verified.redirectUri === OOB_REDIRECT_URI || error instanceof OAuthError) throw error;
    const unexpected = classifyError(error);
    request.log.error({ err: unexpected.cause ?? unexpected }, 'request failed');
    const redirected = unexpected.withRedirect({ redirectUri: verified.redirectUri, state: verified.state });
    return reply.redirect(errorLocation(redirected, deps), status);
  }

  app.get(oauthPaths.authorization, { config: html }, async (request, reply) => {
    const params = request.query as Params;
    let authorization: AuthorizationRequest | undefined;
    try {
      authorization = await validateAuthorizationRequest({ params, repeatedParams: repeatedParamsOf(params) }, deps);
      const signedIn = await deps.sessions.current(request);
      const next = await decideAuthorization(authorization, signedIn?.user.id, deps);
      if (next.step === 'redirect') return reply.redirect(next.location, 302);
      if (next.step === 'sign_in') {
        const returnTo = returnPathThroughSignIn(authorization, withoutLoginPrompt(params));
        return reply.redirect(`/login?${new URLSearchParams({ return_to: returnTo })}`, 302);
      }
      return renderConsent(request, reply, authorization);
    } catch (error) {
      return redirectOrRethrow(request, reply, error, 302, authorization);
    }
  });

  app.post(oauthPaths.authorization, { config: html }, async (request, reply) => {
    const body = (request.body ?? Object.create(null)) as Params;
    if (!(await deps.sessions.verifyCsrf(request, body.csrf_token))) {
      throw new OAuthError('invalid_request', 'This form has expired. Go back to the application and start again.');
    }
    const params: Params = Object.create(null);
    for (const [name, value] of Object.entries(body)) if (!FORM_ONLY_FIELDS.has(name)) params[name] = value;
    let authorization: AuthorizationRequest | undefined;
    try {
      authorization = await validateAuthorizationRequest({ params, repeatedParams: repeatedParamsOf(body) }, deps);
      const signedIn = await deps.sessions.current(request);
      if (signedIn === undefined) {
        const returnTo = returnPathThroughSignIn(authorization, params);
        return reply.redirect(`/login?${new URLSearchParams({ return_to: returnTo })}`, 303);
      }
      if (body.decision !== 'approve' && body.decision !== 'deny') {
        throw errorForRequest(authorization, 'invalid_request', 'decision must be approve or deny');
      }
      const location = await answerConsent(authorization, signedIn.user.id, body.decision === 'approve', request.ip, deps);
      // 303: the browser must follow with GET, never re-POST the form to the client (RFC 9700 §4.11).
      return reply.redirect(location, 303);
    } catch (error) {
      return redirectOrRethrow(request, reply, error, 303, authorization);
    }
  });

  app.get(oauthPaths.nativeCode, { config: html }, async (request, reply) => {
    const { code, error } = request.query as Params;
    // Only what could be one of our codes is shown: this page must not present
    // any text a link carries as an authorization code from Folio.
    const shown = code !== undefined && isWellFormedCredential('authorizationCode', code) ? code : undefined;
    return reply.type('text/html; charset=utf-8').send(renderNativeCodePage(shown, error === 'access_denied'));
  });

  async function renderConsent(request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest) {
    const signedIn = (await deps.sessions.current(request))!;
    const owner = await deps.users.findUserById(authorization.application.ownerId);
    const page = renderConsentPage({
      applicationName: authorization.application.name,
      ownerName: owner?.name ?? 'an unknown developer',
      redirectHost: authorization.redirectUri === OOB_REDIRECT_URI ? null : redirectDestination(authorization.redirectUri),
      scopes: authorization.scope,
      params: authorization.params,
      csrfToken: signedIn.session.csrfToken,
      user: signedIn.user,
    });
    return reply.type('text/html; charset=utf-8').send(page);
  }

  refuseOtherMethods(app, oauthPaths.authorization, ['GET', 'POST'], html);
  refuseOtherMethods(app, oauthPaths.nativeCode, ['GET'], html);
}

/** What the consent page names as the destination: the host, or for a native app's private-use scheme (RFC 8252 §7.1), the scheme. */
function redirectDestination(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host !== '' ? url.host : url.protocol.slice(0, -1);
}

/**
 * Where sign-in returns to: this request again. One that sign-in could not carry
 * back (a long state, once percent-encoded) is refused to the client now, rather
 * than lost on the way and the user left on their portfolios.
 */
function returnPathThroughSignIn(authorization: AuthorizationRequest, params: Record<string, string>): string {
  const returnTo = `${oauthPaths.authorization}?${new URLSearchParams(params)}`;
  if (returnTo.length > MAX_RETURN_PATH) {
    throw errorForRequest(authorization, 'invalid_request', 'The authorization request is too long to carry through sign-in: send a shorter state');
  }
  return returnTo;
}
