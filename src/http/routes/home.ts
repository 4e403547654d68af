import type { FastifyInstance } from 'fastify';
import { copyScript } from '../../web/copy-script.ts';
import { stylesheet } from '../../web/stylesheet.ts';
import type { Sessions } from '../sessions.ts';

export function registerHome(app: FastifyInstance, deps: { sessions: Sessions }): void {
  app.get('/', { config: { html: true } }, async (request, reply) => {
    const signedIn = await deps.sessions.current(request);
    return reply.redirect(signedIn === undefined ? '/login' : '/portfolios', 302);
  });
  app.get('/assets/folio.css', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return reply.type('text/css; charset=utf-8').send(stylesheet);
  });
  app.get('/assets/copy.js', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return reply.type('text/javascript; charset=utf-8').send(copyScript);
  });
}
