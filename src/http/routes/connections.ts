// Connected applications: list the grants that hold access to my account; revoke one,
// which ends the grant and every token from it and forgets the consent, so the
// application has to ask again, all in one transaction (disconnectApplication).
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../oauth/errors.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Storage } from '../../storage/stores.ts';
import { renderConnectionsPage } from '../../web/connections-page.ts';
import { pageUser } from '../../web/page-user.ts';
import { refuseOtherMethods } from '../errors.ts';
import { recordIdFrom } from '../record-id.ts';
import type { Params } from '../form-body.ts';
import { requireSignedIn, verifiedForm } from '../page-guard.ts';
import type { Sessions } from '../sessions.ts';

export interface ConnectionsDeps {
  storage: Pick<Storage, 'grants'>;
  sessions: Sessions;
  clock: Clock;
}

const PATH = '/settings/connections';

export function registerConnections(app: FastifyInstance, deps: ConnectionsDeps): void {
  const options = { config: { html: true }, onRequest: requireSignedIn(deps.sessions) };

  app.get(PATH, options, async (request, reply) => {
    const connections = await deps.storage.grants.listConnectedApplications(request.signedIn!.user.id);
    const notice = (request.query as Params).notice === 'revoked' ? 'Access revoked. The application can no longer read your account.' : undefined;
    return reply.type('text/html; charset=utf-8').send(renderConnectionsPage({ user: pageUser(request.signedIn!), connections, notice }));
  });

  app.post(`${PATH}/:grantId/revoke`, options, async (request, reply) => {
    await verifiedForm(request, deps.sessions);
    const userId = request.signedIn!.user.id;
    const { grantId } = request.params as { grantId: string };
    // Only a live grant of this user: someone else's looks exactly like a missing one.
    const id = recordIdFrom(grantId);
    const connection = id === undefined
      ? undefined
      : (await deps.storage.grants.listConnectedApplications(userId)).find((candidate) => candidate.grantId === id);
    if (connection === undefined) throw new OAuthError('not_found', 'There is no such connection to your account.');
    const now = deps.clock.now();
    await deps.storage.grants.disconnectApplication(connection.grantId, now, {
      type: 'grant.revoked', userId, applicationId: connection.applicationId, ip: request.ip,
      detail: { name: connection.applicationName, grant_id: connection.grantId }, createdAt: now,
    });
    return reply.redirect(`${PATH}?notice=revoked`, 303);
  });

  refuseOtherMethods(app, PATH, ['GET'], { html: true });
  refuseOtherMethods(app, `${PATH}/:grantId/revoke`, ['POST'], { html: true });
}
