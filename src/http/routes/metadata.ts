// RFC 8414 authorization server metadata, and RFC 9728 metadata for each resource
// Folio protects, where a client that met a 401 finds which server issues its tokens.
import type { FastifyInstance } from 'fastify';
import type { GrantRegistry } from '../../oauth/grants/registry.ts';
import { authorizationServerMetadata, oauthPaths } from '../../oauth/metadata.ts';
import { type ProtectedResources, everyResource, protectedResourceMetadata } from '../../oauth/resources.ts';
import { refuseOtherMethods } from '../errors.ts';
import { openApiPaths } from '../openapi.ts';

/** Public and the same for everyone: clients may cache it. */
function servePublicDocument(app: FastifyInstance, path: string, document: object): void {
  app.get(path, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return document;
  });
  refuseOtherMethods(app, path, ['GET']);
}

export function registerMetadata(app: FastifyInstance, deps: { issuer: string; registry: GrantRegistry; registration: boolean }): void {
  const document = authorizationServerMetadata(deps.issuer, deps.registry, { registration: deps.registration });
  servePublicDocument(app, oauthPaths.metadata, document);
}

export function registerProtectedResourceMetadata(app: FastifyInstance, deps: { issuer: string; resources: ProtectedResources }): void {
  for (const resource of everyResource(deps.resources)) {
    servePublicDocument(app, resource.metadataPath, protectedResourceMetadata(resource, deps.issuer, deps.issuer + openApiPaths.guide));
  }
}
