// GET /activity: my recent audit events, named for people.
import type { FastifyInstance } from 'fastify';
import type { AuditEvent } from '../../domain/records.ts';
import type { Storage } from '../../storage/stores.ts';
import { ACTIVITY_TYPES, type ActivityEntry, renderActivityPage } from '../../web/activity-page.ts';
import { pageUser } from '../../web/page-user.ts';
import { refuseOtherMethods } from '../errors.ts';
import { requireSignedIn } from '../page-guard.ts';
import type { Sessions } from '../sessions.ts';

export interface ActivityDeps {
  storage: Pick<Storage, 'audit' | 'applications'>;
  sessions: Sessions;
}

export const ACTIVITY_LIMIT = 50;

export function registerActivity(app: FastifyInstance, deps: ActivityDeps): void {
  /** Events name their application in detail.name when they were recorded with it; else look it up. */
  async function withApplicationNames(events: AuditEvent[]): Promise<ActivityEntry[]> {
    const names = new Map<number, string | undefined>();
    for (const event of events) {
      if (event.applicationId === null || typeof event.detail.name === 'string' || names.has(event.applicationId)) continue;
      names.set(event.applicationId, (await deps.storage.applications.findApplicationById(event.applicationId))?.name);
    }
    return events.map((event) => ({
      event,
      applicationName: typeof event.detail.name === 'string' ? event.detail.name : event.applicationId === null ? undefined : names.get(event.applicationId),
    }));
  }

  app.get('/activity', { config: { html: true }, onRequest: requireSignedIn(deps.sessions) }, async (request, reply) => {
    const events = await deps.storage.audit.listEventsForUser(request.signedIn!.user.id, ACTIVITY_LIMIT, ACTIVITY_TYPES);
    const entries = await withApplicationNames(events);
    return reply.type('text/html; charset=utf-8').send(renderActivityPage({ user: pageUser(request.signedIn!), entries }));
  });

  refuseOtherMethods(app, '/activity', ['GET'], { html: true });
}
