// GET/POST /signup, open when config.allowSignup is (by default everywhere but production).
//
// An email already taken is said so plainly: the new account is signed in at once,
// so success itself would tell an attacker the address was free, and no wording can
// hide it without email verification. What limits that enumeration is the address
// throttle: every taken email counts as a failure of the address, as a wrong
// password does, and a locked address cannot sign up either.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountError } from '../../accounts/errors.ts';
import { createUser } from '../../accounts/users.ts';
import { OAuthError } from '../../oauth/errors.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PasswordCost } from '../../platform/password.ts';
import type { User } from '../../domain/records.ts';
import type { Storage } from '../../storage/stores.ts';
import { validateSignUp, type SignUpValues } from '../../web/sign-up-form.ts';
import { renderSignUpPage } from '../../web/sign-up-page.ts';
import type { FieldErrors } from '../../web/form-fields.ts';
import { refuseOtherMethods } from '../errors.ts';
import type { Params } from '../form-body.ts';
import { type LoginThrottle, waitInWords } from '../../accounts/login-throttle.ts';
import type { Sessions } from '../sessions.ts';
import { safeReturnPath } from './sign-in.ts';

export interface SignUpDeps {
  storage: Pick<Storage, 'users'>;
  sessions: Sessions;
  throttle: LoginThrottle;
  clock: Clock;
  allowSignup: boolean;
  passwordCost: PasswordCost;
}

const EMAIL_TAKEN = 'An account with this email already exists. Sign in instead, or use another email.';

/** After sign-up: back to an authorization that sent the person here, else their portfolios. */
const afterSignUp = (returnTo: string) => (returnTo === '/' ? '/portfolios' : returnTo);

export function registerSignUp(app: FastifyInstance, deps: SignUpDeps): void {
  const config = { html: true };

  function refuseWhenClosed(): void {
    if (!deps.allowSignup) throw new OAuthError('not_found', 'This server does not accept new accounts. Ask its operator for one.');
  }

  interface FormState { values?: SignUpValues; errors?: FieldErrors; error?: string }

  async function showForm(request: FastifyRequest, reply: FastifyReply, returnTo: string, status: number, state: FormState = {}) {
    const page = renderSignUpPage({ csrfToken: await deps.sessions.csrfToken(request, reply), returnTo, ...state });
    return reply.code(status).type('text/html; charset=utf-8').send(page);
  }

  app.get('/signup', { config }, async (request, reply) => {
    refuseWhenClosed();
    const returnTo = safeReturnPath((request.query as Params).return_to);
    if ((await deps.sessions.current(request)) !== undefined) return reply.redirect(afterSignUp(returnTo), 302);
    return showForm(request, reply, returnTo, 200);
  });

  app.post('/signup', { config }, async (request, reply) => {
    refuseWhenClosed();
    const body = (request.body ?? {}) as Params;
    const returnTo = safeReturnPath(body.return_to);
    const kept = { name: (body.name ?? '').trim(), email: (body.email ?? '').trim() };
    if (!(await deps.sessions.verifyCsrf(request, body.csrf_token))) {
      return showForm(request, reply, returnTo, 403, { values: kept, error: 'This form expired. Please try again.' });
    }
    const showLocked = (ms: number) => {
      reply.header('retry-after', String(Math.ceil(ms / 1000)));
      return showForm(request, reply, returnTo, 429, { values: kept, error: `Too many attempts from your network. Try again in ${waitInWords(ms)}.` });
    };
    // Counted before the email is looked at, as a sign-in is: a burst of parallel
    // sign-ups learns no more taken emails than the address's limit.
    const attempt = await deps.throttle.begin(undefined, request.ip);
    if (attempt.refusedForMs > 0) return showLocked(attempt.refusedForMs);

    const result = validateSignUp(body);
    if (!result.ok) {
      await deps.throttle.notAFailure(attempt);
      return showForm(request, reply, returnTo, 400, { values: result.values, errors: result.errors });
    }
    let user: User;
    try {
      user = await createUser(deps, { ...result.account, ip: request.ip });
    } catch (error) {
      if (!(error instanceof AccountError && error.reason === 'conflict')) throw error;
      if (attempt.lockedIfWrongMs > 0) return showLocked(attempt.lockedIfWrongMs);
      return showForm(request, reply, returnTo, 409, { values: kept, errors: { email: EMAIL_TAKEN } });
    }
    await deps.throttle.notAFailure(attempt);
    await deps.sessions.start(request, reply, user.id);
    return reply.redirect(afterSignUp(returnTo), 303);
  });

  refuseOtherMethods(app, '/signup', ['GET', 'POST'], config);
}
