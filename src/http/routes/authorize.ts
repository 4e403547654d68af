// GET/POST /oauth2/authorize and the out-of-band code page (RFC 6749 §4.1.1–4.1.2).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuthorizationDecisionDeps, answerConsent, decideAuthorization, errorLocation, withoutLoginPrompt } from '../../oauth/authorization-decision.ts';
import { type AuthorizationRequest, validateAuthorizationRequest } from '../../oauth/authorize.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import { OOB_REDIRECT_URI } from '../../oauth/redirect-uris.ts';
import type { ApplicationStore, UserStore } from '../../storage/stores.ts';
import { renderConsentPage } from '../../web/consent-page.ts';
import { renderNativeCodePage } from '../../web/native-code-page.ts';
import { refuseOtherMethods } from '../errors.ts';
import { type Params, parseQuery, repeatedParamsOf } from '../form-body.ts';
import type { Sessions } from '../sessions.ts';

export interface AuthorizeRouteDeps extends AuthorizationDecisionDeps {
  applications: Pick<ApplicationStore, 'findApplicationByClientId' | 'findApplicationById'>;
  users: Pick<UserStore, 'findUserById'>;
  sessions: Sessions;
}

const FORM_ONLY_FIELDS = new Set(['csrf_token', 'decision']);

export function registerAuthorize(app: FastifyInstance, deps: AuthorizeRouteDeps): void {
  const html = { html: true };

  async function redirectOrRethrow(reply: FastifyReply, error: unknown, status: 302 | 303): Promise<FastifyReply> {
    if (error instanceof OAuthError && error.redirectTo !== undefined) return reply.redirect(errorLocation(error, deps), status);
    throw error;
  }

  app.get(oauthPaths.authorization, { config: html }, async (request, reply) => {
    const params = parseQuery(request.url);
    try {
      const authorization = await validateAuthorizationRequest({ params, repeatedParams: repeatedParamsOf(params) }, deps);
      const signedIn = await deps.sessions.current(request);
      const next = await decideAuthorization(authorization, signedIn?.user.id, deps);
      if (next.step === 'redirect') return reply.redirect(next.location, 302);
      if (next.step === 'sign_in') {
        if (next.endCurrentSession) await deps.sessions.end(request, reply);
        const returnTo = `${oauthPaths.authorization}?${new URLSearchParams(withoutLoginPrompt(params))}`;
        return reply.redirect(`/login?${new URLSearchParams({ return_to: returnTo })}`, 302);
      }
      return renderConsent(request, reply, authorization);
    } catch (error) {
      return redirectOrRethrow(reply, error, 302);
    }
  });

  app.post(oauthPaths.authorization, { config: html }, async (request, reply) => {
    const body = (request.body ?? Object.create(null)) as Params;
    if (!(await deps.sessions.verifyCsrf(request, body.csrf_token))) {
      throw new OAuthError('invalid_request', 'This form has expired. Go back to the application and start again.');
    }
    const params: Params = Object.create(null);
    for (const [name, value] of Object.entries(body)) if (!FORM_ONLY_FIELDS.has(name)) params[name] = value;
    try {
      const authorization = await validateAuthorizationRequest({ params, repeatedParams: repeatedParamsOf(body) }, deps);
      const signedIn = await deps.sessions.current(request);
      if (signedIn === undefined) {
        const returnTo = `${oauthPaths.authorization}?${new URLSearchParams(params)}`;
        return reply.redirect(`/login?${new URLSearchParams({ return_to: returnTo })}`, 303);
      }
      if (body.decision !== 'approve' && body.decision !== 'deny') {
        throw new OAuthError('invalid_request', 'decision must be approve or deny').withRedirect({ redirectUri: authorization.redirectUri, state: authorization.state });
      }
      const location = await answerConsent(authorization, signedIn.user.id, body.decision === 'approve', request.ip, deps);
      // 303: the browser must follow with GET, never re-POST the form to the client (RFC 9700 §4.11).
      return reply.redirect(location, 303);
    } catch (error) {
      return redirectOrRethrow(reply, error, 303);
    }
  });

  app.get(oauthPaths.nativeCode, { config: html }, async (request, reply) => {
    const { code } = parseQuery(request.url);
    return reply.type('text/html; charset=utf-8').send(renderNativeCodePage(code));
  });

  async function renderConsent(request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest) {
    const signedIn = (await deps.sessions.current(request))!;
    const owner = await deps.users.findUserById(authorization.application.ownerId);
    const page = renderConsentPage({
      applicationName: authorization.application.name,
      ownerName: owner?.name ?? 'an unknown developer',
      redirectHost: authorization.redirectUri === OOB_REDIRECT_URI ? null : new URL(authorization.redirectUri).host,
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
