// The protocol endpoints clients call directly: token (RFC 6749 §3.2), revocation
// (RFC 7009), introspection (RFC 7662), registration (RFC 7591), the metadata that
// lists them (RFC 8414) and that of the resources their tokens are for (RFC 9728).
// No cookies, no sessions: a client authenticates on each request; registration
// alone is rate limited, per address.
import type { FastifyPluginAsync } from 'fastify';
import type { RegistrationMode } from '../../config.ts';
import type { GrantRegistry } from '../../oauth/grants/registry.ts';
import type { ProtectedResources } from '../../oauth/resources.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RandomSource } from '../../platform/random.ts';
import type { RateLimiter } from '../../platform/rate-limit/limiter.ts';
import type { Storage } from '../../storage/stores.ts';
import { registerMetadata, registerProtectedResourceMetadata } from '../routes/metadata.ts';
import { registerOAuthEndpoints } from '../routes/oauth-endpoints.ts';
import { refuseRegistration, registerRegistration } from '../routes/registration.ts';

export interface TokenEndpointsDeps {
  /** With client look-ups that resolve metadata-document clients (oauth/metadata-document-clients.ts). */
  storage: Storage;
  registry: GrantRegistry;
  clock: Clock;
  random: RandomSource;
  issuer: string;
  registration: { mode: RegistrationMode; token: string | null; limiter: RateLimiter };
  resources: ProtectedResources;
}

export const tokenEndpoints: FastifyPluginAsync<TokenEndpointsDeps> = async (app, deps) => {
  const { storage, registry, clock, random, issuer, registration, resources } = deps;
  registerMetadata(app, { issuer, registry, registration: registration.mode !== 'off' });
  registerProtectedResourceMetadata(app, { issuer, resources });
  registerOAuthEndpoints(app, { ...storage, registry, clock, issuer, resources });
  if (registration.mode === 'off') await refuseRegistration(app);
  else {
    await registerRegistration(app, {
      applications: storage.applications, clock, random, initialAccessToken: registration.token, limiter: registration.limiter,
    });
  }
};
