// GET/POST /oauth2/authorize and the out-of-band code page (RFC 6749 §4.1.1–4.1.2).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { holdNativeCode, takeNativeCode } from '../../accounts/native-codes.ts';
import {
  type AuthorizationAnswer, type AuthorizationDecisionDeps, answerConsent, decideAuthorization, errorForRequest, errorLocation,
  mayRedirectWithoutAsking, withoutLoginPrompt,
} from '../../oauth/authorization-decision.ts';
import { type AuthorizationRequest, validateAuthorizationRequest } from '../../oauth/authorize.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import { OOB_REDIRECT_URI } from '../../oauth/redirect-uris.ts';
import { type ProtectedResources, resourceAt } from '../../oauth/resources.ts';
import type { ApplicationStore, Storage, UserStore } from '../../storage/stores.ts';
import { isLoopbackHost } from '../../platform/loopback.ts';
import { renderConsentPage } from '../../web/consent-page.ts';
import { renderErrorPage } from '../../web/error-page.ts';
import { renderNativeCodePage } from '../../web/native-code-page.ts';
import { classifyError, refuseOtherMethods } from '../errors.ts';
import { type Params, repeatedParamsOf } from '../form-body.ts';
import type { Sessions } from '../sessions.ts';
import { MAX_RETURN_PATH } from './sign-in.ts';

export interface AuthorizeRouteDeps extends AuthorizationDecisionDeps {
  applications: Pick<ApplicationStore, 'findApplicationByClientId' | 'findApplicationById'>;
  users: Pick<UserStore, 'findUserById'>;
  storage: Pick<Storage, 'sessions'>;
  sessions: Sessions;
  resources: ProtectedResources;
}

const FORM_ONLY_FIELDS = new Set(['csrf_token', 'decision']);

export function registerAuthorize(app: FastifyInstance, deps: AuthorizeRouteDeps): void {
  const html = { html: true };

  /**
   * Errors about a verified request go back to the client (RFC 6749 §4.1.2.1),
   * unexpected ones too, as server_error or temporarily_unavailable: by redirect
   * after the consent form (`asked`) or once the user has approved the application,
   * otherwise by a link on a page (RFC 9700 §4.11.2, mayRedirectWithoutAsking). The
   * rest (an unknown client or redirect URI, or the out-of-band URI) are shown on a page.
   */
  async function answerError(
    request: FastifyRequest, reply: FastifyReply, error: unknown, verified: AuthorizationRequest | undefined, asked: boolean,
  ): Promise<FastifyReply> {
    let answer: OAuthError;
    if (error instanceof OAuthError && error.redirectTo !== undefined) {
      answer = error;
    } else {
      if (verified === undefined || verified.redirectUri === OOB_REDIRECT_URI || error instanceof OAuthError) throw error;
      answer = classifyError(error);
      request.log.error({ err: answer.cause ?? answer }, 'request failed');
      answer = answer.withRedirect({ redirectUri: verified.redirectUri, state: verified.state, application: verified.application });
    }
    const location = errorLocation(answer, deps);
    if (asked) return reply.redirect(location, 303);
    const { application, redirectUri } = answer.redirectTo!;
    // Whether the user approved the application cannot always be known (the database
    // may be what failed): then the page, which is always safe, answers.
    const approved = await deps.sessions.current(request)
      .then((signedIn) => mayRedirectWithoutAsking(application.id, signedIn?.user.id, deps))
      .catch(() => false);
    if (approved) return reply.redirect(location, 302);
    reply.oauthErrorCode = answer.code;
    const page = renderErrorPage(answer, { applicationName: application.name, destination: redirectDestination(redirectUri), location });
    return reply.code(answer.status).type('text/html; charset=utf-8').send(page);
  }

  /** A code for the out-of-band URI waits on this browser's session for the page that shows it. */
  async function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: AuthorizationAnswer, status: 302 | 303) {
    if (answer.step === 'redirect') return reply.redirect(answer.location, status);
    await holdNativeCode({ storage: deps.storage, clock: deps.clock, random: deps.random }, deps.sessions.sessionId(request)!, answer.code);
    return reply.redirect(deps.nativeCodePage, status);
  }

  app.get(oauthPaths.authorization, { config: html }, async (request, reply) => {
    const params = request.query as Params;
    let authorization: AuthorizationRequest | undefined;
    try {
      authorization = await validateAuthorizationRequest({ params, repeatedParams: repeatedParamsOf(params) }, deps);
      const signedIn = await deps.sessions.current(request);
      const next = await decideAuthorization(authorization, signedIn?.user.id, deps);
      if (next.step === 'sign_in') {
        const returnTo = returnPathThroughSignIn(authorization, withoutLoginPrompt(params));
        return reply.redirect(`/login?${new URLSearchParams({ return_to: returnTo })}`, 302);
      }
      if (next.step === 'consent') return renderConsent(request, reply, authorization);
      return await sendAnswer(request, reply, next, 302);
    } catch (error) {
      return answerError(request, reply, error, authorization, false);
    }
  });

  app.post(oauthPaths.authorization, { config: html }, async (request, reply) => {
    const body = (request.body ?? Object.create(null)) as Params;
    // The token proves the form is Folio's own: the user is answering it, so errors may redirect.
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
      const answer = await answerConsent(authorization, signedIn.user.id, body.decision === 'approve', request.ip, deps);
      // 303: the browser must follow with GET, never re-POST the form to the client (RFC 9700 §4.11).
      return await sendAnswer(request, reply, answer, 303);
    } catch (error) {
      return answerError(request, reply, error, authorization, true);
    }
  });

  app.get(oauthPaths.nativeCode, { config: html }, async (request, reply) => {
    const denied = (request.query as Params).error === 'access_denied';
    // HEAD answers with GET's headers and no body (RFC 9110 §9.3.2): taking the code
    // there would spend its one showing on a response that cannot carry it.
    const code = denied || request.method === 'HEAD' ? undefined : await takeNativeCode(deps, deps.sessions.sessionId(request));
    return reply.type('text/html; charset=utf-8').send(renderNativeCodePage(code, denied));
  });

  async function renderConsent(request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest) {
    const signedIn = (await deps.sessions.current(request))!;
    const { application } = authorization;
    const owner = application.ownerId === null ? undefined : await deps.users.findUserById(application.ownerId);
    const page = renderConsentPage({
      applicationName: application.name,
      clientId: application.clientId,
      registration: application.registration,
      ownerName: owner?.name ?? null,
      redirectHost: authorization.redirectUri === OOB_REDIRECT_URI ? null : redirectDestination(authorization.redirectUri),
      // The address this request returns to, not the registered list: a document's localhost URI can be
      // used by any program on the person's computer that names that document (MCP, localhost redirect risks).
      loopbackRedirect: isLoopbackRedirect(authorization.redirectUri),
      scopes: authorization.scope,
      reach: resourceAt(deps.resources, authorization.resource).reach,
      params: authorization.params,
      csrfToken: signedIn.session.csrfToken,
      user: signedIn.user,
    });
    return reply.type('text/html; charset=utf-8').send(page);
  }

  refuseOtherMethods(app, oauthPaths.authorization, ['GET', 'POST'], html);
  refuseOtherMethods(app, oauthPaths.nativeCode, ['GET'], html);
}

function isLoopbackRedirect(redirectUri: string): boolean {
  // Registered redirect URIs are absolute URLs (platform/redirect-uris.ts), or the out-of-band URN.
  const url = new URL(redirectUri);
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
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
