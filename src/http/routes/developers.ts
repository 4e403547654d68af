// GET /developers: the developer guide, rendered once; it is the same for everyone.
import type { FastifyInstance } from 'fastify';
import { renderDeveloperGuide } from '../../web/developer-guide-page.ts';
import { refuseOtherMethods } from '../errors.ts';
import { openApiPaths } from '../openapi.ts';

export function registerDeveloperGuide(app: FastifyInstance, deps: { baseUrl: string }): void {
  const page = renderDeveloperGuide(deps.baseUrl);
  app.get(openApiPaths.guide, { config: { html: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return reply.type('text/html; charset=utf-8').send(page);
  });
  refuseOtherMethods(app, openApiPaths.guide, ['GET'], { html: true });
}
