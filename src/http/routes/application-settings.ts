// API settings pages (DESIGN §1): register, view, edit, rotate the secret of and delete
// my applications. Signed-in only, CSRF on every form, 303 after every POST; someone
// else's application is a 404, exactly like a missing one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as accounts from '../../accounts/applications.ts';
import { AccountError } from '../../accounts/errors.ts';
import { revealTo, takeSecretToReveal } from '../../accounts/secret-reveals.ts';
import { OAuthError } from '../../oauth/errors.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RandomSource } from '../../platform/random.ts';
import type { Application, OwnedApplication } from '../../domain/records.ts';
import type { Storage } from '../../storage/stores.ts';
import {
  type ApplicationField, type ApplicationFormValues, NEW_APPLICATION_VALUES, renderApplicationForm,
} from '../../web/application-form-page.ts';
import { renderApplicationConfirm, renderApplicationDetail, renderApplicationList } from '../../web/application-pages.ts';
import { pageUser } from '../../web/page-user.ts';
import { refuseOtherMethods } from '../errors.ts';
import { recordIdFrom } from '../record-id.ts';
import type { Params } from '../form-body.ts';
import { requireSignedIn, verifiedForm } from '../page-guard.ts';
import type { Sessions } from '../sessions.ts';

export interface ApplicationSettingsDeps {
  storage: Pick<Storage, 'applications' | 'secretReveals'>;
  sessions: Sessions;
  clock: Clock;
  random: RandomSource;
}

const BASE = '/settings/applications';
const NOTICES: Record<string, string> = {
  updated: 'Your changes are saved.',
  deleted: 'The application is deleted; its tokens no longer work.',
};

function notice(request: FastifyRequest): string | undefined {
  const key = (request.query as Params).notice;
  return key === undefined ? undefined : NOTICES[key];
}

function sendPage(reply: FastifyReply, page: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

function formValues(body: Params): ApplicationFormValues {
  return {
    name: body.name ?? '',
    redirectUris: body.redirect_uris ?? '',
    clientType: body.client_type === 'public' ? 'public' : 'confidential',
    pkceRequired: body.pkce_required !== undefined,
  };
}

function valuesOf(application: Application): ApplicationFormValues {
  return {
    name: application.name,
    redirectUris: application.redirectUris.join('\n'),
    clientType: application.confidential ? 'confidential' : 'public',
    pkceRequired: application.pkceRequired,
  };
}

/** Checks every field, so one submission reports every problem; the settings when there is none. */
function readSettings(body: Params): { settings?: accounts.ApplicationSettings; errors: Partial<Record<ApplicationField, string>> } {
  const errors: Partial<Record<ApplicationField, string>> = {};
  const check = <T>(field: ApplicationField, run: () => T): T | undefined => {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      errors[field] = capitalize(error.message);
      return undefined;
    }
  };
  const name = check('name', () => accounts.validApplicationName(body.name ?? ''));
  const lines = (body.redirect_uris ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  const redirectUris = check('redirect_uris', () => accounts.validRedirectUris(lines));
  if (body.client_type !== 'confidential' && body.client_type !== 'public') errors.client_type = 'Choose confidential or public';
  if (name === undefined || redirectUris === undefined || errors.client_type !== undefined) return { errors };
  const confidential = body.client_type === 'confidential';
  // RFC 9700 §2.1.1: PKCE is the only thing protecting a public client's code.
  return { settings: { name, redirectUris, confidential, pkceRequired: !confidential || body.pkce_required !== undefined }, errors };
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function registerApplicationSettings(app: FastifyInstance, deps: ApplicationSettingsDeps): void {
  const options = { config: { html: true }, onRequest: requireSignedIn(deps.sessions) };

  async function ownedApplication(request: FastifyRequest): Promise<OwnedApplication> {
    const { id } = request.params as { id: string };
    try {
      const applicationId = recordIdFrom(id);
      if (applicationId === undefined) throw new AccountError('no such application', 'not_found');
      return await accounts.findOwnedApplication(deps.storage, applicationId, request.signedIn!.user.id);
    } catch (error) {
      if (error instanceof AccountError) throw new OAuthError('not_found', 'There is no such application among yours.');
      throw error;
    }
  }

  /** The browser's session id: the key a waiting secret is sealed with. The guard has checked it. */
  const sessionId = (request: FastifyRequest) => deps.sessions.sessionId(request)!;
  /** The new secret waits, sealed, for the page the POST redirects to (DESIGN §2: 303 after every POST). */
  const revealOnNextPage = (request: FastifyRequest) => revealTo(deps, sessionId(request));

  app.get(BASE, options, async (request, reply) => {
    const applications = await deps.storage.applications.listApplicationsOwnedBy(request.signedIn!.user.id);
    return sendPage(reply, renderApplicationList({ user: pageUser(request.signedIn!), applications, notice: notice(request) }));
  });

  app.get(`${BASE}/new`, options, async (request, reply) => {
    return sendPage(reply, renderApplicationForm({ user: pageUser(request.signedIn!), values: NEW_APPLICATION_VALUES, errors: {} }));
  });

  app.post(`${BASE}/new`, options, async (request, reply) => {
    const body = await verifiedForm(request, deps.sessions);
    const { settings, errors } = readSettings(body);
    if (settings === undefined) {
      return sendPage(reply, renderApplicationForm({ user: pageUser(request.signedIn!), values: formValues(body), errors }), 422);
    }
    const registered = await accounts.registerApplication(
      deps, { ...settings, ownerId: request.signedIn!.user.id, ip: request.ip }, revealOnNextPage(request),
    );
    return reply.redirect(`${BASE}/${registered.application.id}`, 303);
  });

  app.get(`${BASE}/:id`, options, async (request, reply) => {
    const application = await ownedApplication(request);
    // HEAD answers with GET's headers and no body (RFC 9110 §9.3.2): taking the secret
    // there would spend its one showing on a response that cannot carry it.
    const secret = request.method === 'HEAD'
      ? undefined
      : await takeSecretToReveal(deps, { sessionId: sessionId(request), applicationId: application.id });
    return sendPage(reply, renderApplicationDetail({ user: pageUser(request.signedIn!), application, secret, notice: notice(request) }));
  });

  app.get(`${BASE}/:id/edit`, options, async (request, reply) => {
    const application = await ownedApplication(request);
    return sendPage(reply, renderApplicationForm({ user: pageUser(request.signedIn!), applicationId: application.id, values: valuesOf(application), errors: {} }));
  });

  app.post(`${BASE}/:id/edit`, options, async (request, reply) => {
    const body = await verifiedForm(request, deps.sessions);
    const application = await ownedApplication(request);
    const { settings, errors } = readSettings(body);
    if (settings === undefined) {
      return sendPage(reply, renderApplicationForm({ user: pageUser(request.signedIn!), applicationId: application.id, values: formValues(body), errors }), 422);
    }
    await accounts.updateApplication(deps, application, settings, request.ip);
    return reply.redirect(`${BASE}/${application.id}?notice=updated`, 303);
  });

  for (const action of ['rotate-secret', 'delete'] as const) {
    app.get(`${BASE}/:id/${action}`, options, async (request, reply) => {
      return sendPage(reply, renderApplicationConfirm({ user: pageUser(request.signedIn!), application: await ownedApplication(request), action }));
    });
  }

  app.post(`${BASE}/:id/rotate-secret`, options, async (request, reply) => {
    await verifiedForm(request, deps.sessions);
    const application = await ownedApplication(request);
    await accounts.rotateApplicationSecret(deps, application, request.ip, revealOnNextPage(request));
    return reply.redirect(`${BASE}/${application.id}`, 303);
  });

  app.post(`${BASE}/:id/delete`, options, async (request, reply) => {
    await verifiedForm(request, deps.sessions);
    await accounts.deleteApplication(deps, await ownedApplication(request), request.ip);
    return reply.redirect(`${BASE}?notice=deleted`, 303);
  });

  refuseOtherMethods(app, BASE, ['GET'], { html: true });
  refuseOtherMethods(app, `${BASE}/:id`, ['GET'], { html: true });
  for (const path of ['new', ':id/edit', ':id/rotate-secret', ':id/delete']) {
    refuseOtherMethods(app, `${BASE}/${path}`, ['GET', 'POST'], { html: true });
  }
}
