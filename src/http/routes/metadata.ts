import type { FastifyInstance } from 'fastify';
import type { GrantRegistry } from '../../oauth/grants/registry.ts';
import { authorizationServerMetadata, oauthPaths } from '../../oauth/metadata.ts';
import { refuseOtherMethods } from '../errors.ts';

export function registerMetadata(app: FastifyInstance, deps: { issuer: string; registry: GrantRegistry; registration: boolean }): void {
  const document = authorizationServerMetadata(deps.issuer, deps.registry, { registration: deps.registration });
  app.get(oauthPaths.metadata, async (_request, reply) => {
    // Public and the same for everyone: let clients cache it.
    reply.header('cache-control', 'public, max-age=300');
    return document;
  });
  refuseOtherMethods(app, oauthPaths.metadata, ['GET']);
}
