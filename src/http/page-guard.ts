// What every signed-in page needs: a session (else off to sign-in and back)
// and, on POST, a valid CSRF token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../oauth/errors.ts';
import type { Params } from './form-body.ts';
import type { Sessions } from './sessions.ts';

/** onRequest hook for signed-in pages: request.signedIn is set after it, or the answer is a redirect to /login. */
export function requireSignedIn(sessions: Sessions) {
  return async function guardPage(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if ((await sessions.current(request)) === undefined) return sendToSignIn(request, reply);
  };
}

/** To sign-in and back: to the page asked for, or home after a form post, whose form is gone. */
export function sendToSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const returnTo = request.method === 'GET' ? request.url : '/';
  return reply.redirect(`/login?${new URLSearchParams({ return_to: returnTo })}`, request.method === 'GET' ? 302 : 303);
}

/** The form's fields, once its CSRF token is checked against the session. */
export async function verifiedForm(request: FastifyRequest, sessions: Sessions): Promise<Params> {
  const body = (request.body ?? Object.create(null)) as Params;
  if (!(await sessions.verifyCsrf(request, body.csrf_token))) {
    throw new OAuthError('invalid_request', 'This form expired. Reload the page and try again.');
  }
  return body;
}
