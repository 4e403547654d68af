// The protocol endpoints clients call directly: token (RFC 6749 §3.2), revocation
// (RFC 7009), introspection (RFC 7662), the metadata that lists them (RFC 8414) and
// that of the resources their tokens are for (RFC 9728).
// No cookies, no sessions, no rate limit: a client authenticates on each request.
import type { FastifyPluginAsync } from 'fastify';
import type { GrantRegistry } from '../../oauth/grants/registry.ts';
import type { ProtectedResources } from '../../oauth/resources.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Storage } from '../../storage/stores.ts';
import { registerMetadata, registerProtectedResourceMetadata } from '../routes/metadata.ts';
import { registerOAuthEndpoints } from '../routes/oauth-endpoints.ts';

export interface TokenEndpointsDeps {
  storage: Storage;
  registry: GrantRegistry;
  clock: Clock;
  issuer: string;
  resources: ProtectedResources;
}

export const tokenEndpoints: FastifyPluginAsync<TokenEndpointsDeps> = async (app, { storage, registry, clock, issuer, resources }) => {
  registerMetadata(app, { issuer, registry });
  registerProtectedResourceMetadata(app, { issuer, resources });
  registerOAuthEndpoints(app, { ...storage, registry, clock, issuer, resources });
};
