// The protocol endpoints clients call directly: token (RFC 6749 §3.2), revocation
// (RFC 7009), introspection (RFC 7662) and the metadata that lists them (RFC 8414).
// No cookies, no sessions, no rate limit: a client authenticates on each request.
import type { FastifyPluginAsync } from 'fastify';
import type { GrantRegistry } from '../../oauth/grants/registry.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Storage } from '../../storage/stores.ts';
import { registerMetadata } from '../routes/metadata.ts';
import { registerOAuthEndpoints } from '../routes/oauth-endpoints.ts';

export interface TokenEndpointsDeps {
  storage: Storage;
  registry: GrantRegistry;
  clock: Clock;
  issuer: string;
}

export const tokenEndpoints: FastifyPluginAsync<TokenEndpointsDeps> = async (app, { storage, registry, clock, issuer }) => {
  registerMetadata(app, { issuer, registry });
  registerOAuthEndpoints(app, { ...storage, registry, clock, issuer });
};
