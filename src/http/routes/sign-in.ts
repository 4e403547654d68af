// GET/POST /login and POST /logout.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../oauth/errors.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import { type SignInDeps, checkSignIn } from '../../accounts/sign-in.ts';
import type { AuditEventType, NewAuditEvent } from '../../domain/records.ts';
import type { ApplicationStore } from '../../storage/stores.ts';
import { renderSignInPage } from '../../web/sign-in-page.ts';
import { refuseOtherMethods } from '../errors.ts';
import type { Params } from '../form-body.ts';
import { waitInWords } from '../../accounts/login-throttle.ts';
import type { Sessions } from '../sessions.ts';

export interface SignInRouteDeps extends SignInDeps {
  applications: Pick<ApplicationStore, 'findApplicationByClientId'>;
  sessions: Sessions;
  /** Whether to offer "Create an account". */
  allowSignup: boolean;
}

const SIGN_IN_FAILED = 'That email and password do not match an account.';
/** The same words whichever email was tried, so a lock reveals nothing about accounts. */
const lockedMessage = (ms: number) => `Too many failed sign-in attempts. Try again in ${waitInWords(ms)}.`;

/**
 * Only local paths: an absolute or protocol-relative URL here would be an open redirect.
 * Browsers drop tabs and newlines from a Location ("/\t/evil" becomes "//evil"), and
 * control or non-ASCII characters cannot go in a header at all (our own return
 * addresses are percent-encoded), so only printable ASCII is accepted.
 */
/** Longer return paths are dropped: the sign-in URL carrying one encoded again must fit in a request line. */
export const MAX_RETURN_PATH = 4096;

export function safeReturnPath(value: string | undefined): string {
  if (value === undefined || value.length > MAX_RETURN_PATH || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (/[^\x21-\x7e]/.test(value)) return '/';
  return value;
}

export function registerSignIn(app: FastifyInstance, deps: SignInRouteDeps): void {
  const html = { html: true };

  /** When sign-in is part of an authorization, name the application that asked. */
  async function askingApplication(returnTo: string): Promise<string | undefined> {
    if (!returnTo.startsWith(`${oauthPaths.authorization}?`)) return undefined;
    const clientId = new URLSearchParams(returnTo.slice(returnTo.indexOf('?') + 1)).get('client_id');
    if (clientId === null || clientId.length > 256) return undefined;
    return (await deps.applications.findApplicationByClientId(clientId))?.name;
  }

  async function showForm(request: FastifyRequest, reply: FastifyReply, returnTo: string, status: number, email?: string, error?: string) {
    const signedIn = await deps.sessions.current(request);
    const page = renderSignInPage({
      csrfToken: await deps.sessions.csrfToken(request, reply),
      returnTo, email, error, applicationName: await askingApplication(returnTo),
      // Sign-up sends someone already signed in straight on to returnTo as that account,
      // which would skip the fresh sign-in prompt=login asked for.
      allowSignup: deps.allowSignup && signedIn === undefined,
      signedInAs: signedIn?.user.email,
    });
    return reply.code(status).type('text/html; charset=utf-8').send(page);
  }

  app.get('/login', { config: html }, async (request, reply) => {
    return showForm(request, reply, safeReturnPath((request.query as Params).return_to), 200);
  });

  app.post('/login', { config: html }, async (request, reply) => {
    const body = (request.body ?? {}) as Params;
    const returnTo = safeReturnPath(body.return_to);
    if (!(await deps.sessions.verifyCsrf(request, body.csrf_token))) {
      return showForm(request, reply, returnTo, 403, body.email, 'This form expired. Please sign in again.');
    }
    const email = (body.email ?? '').trim();
    const showLocked = (ms: number) => {
      reply.header('retry-after', String(Math.ceil(ms / 1000)));
      return showForm(request, reply, returnTo, 429, email, lockedMessage(ms));
    };
    const outcome = await checkSignIn({ email, password: body.password ?? '', ip: request.ip, device: deps.sessions.device(request) }, deps);
    if (outcome.kind === 'refused') return showLocked(outcome.waitMs);
    if (outcome.kind === 'wrong') {
      return outcome.lockedForMs > 0 ? showLocked(outcome.lockedForMs) : showForm(request, reply, returnTo, 401, email, SIGN_IN_FAILED);
    }
    const { user } = outcome;
    const now = deps.clock.now();
    deps.sessions.rememberDevice(reply, outcome.device);
    // A session still live (prompt=login asks for a fresh sign-in over one) is replaced, and its account sees it end.
    const replaced = await deps.sessions.current(request);
    await deps.sessions.start(
      request, reply, user.id,
      accountEvent('sign_in.success', user.id, request, now),
      replaced && accountEvent('sign_out', replaced.user.id, request, now),
    );
    return reply.redirect(returnTo, 303);
  });

  app.post('/logout', { config: html }, async (request, reply) => {
    const body = (request.body ?? {}) as Params;
    if (!(await deps.sessions.verifyCsrf(request, body.csrf_token))) {
      throw new OAuthError('invalid_request', 'This form expired. Reload the page and try again.');
    }
    const signedIn = await deps.sessions.current(request);
    await deps.sessions.end(request, reply, signedIn && accountEvent('sign_out', signedIn.user.id, request, deps.clock.now()));
    return reply.redirect('/login', 303);
  });

  refuseOtherMethods(app, '/login', ['GET', 'POST'], html);
  refuseOtherMethods(app, '/logout', ['POST'], html);
}

/** An event about the person signing in or out, from no application. */
function accountEvent(
  type: AuditEventType, userId: number | null, request: FastifyRequest, now: number, detail: Record<string, unknown> = {},
): NewAuditEvent {
  return { type, userId, applicationId: null, ip: request.ip, detail, createdAt: now };
}
