// The bearer-token API (RFC 6750): /api/v2 and /oauth2/token/info. Every route
// authenticates its token, and is counted against its application and user's rate
// limit (DESIGN §2). No cookies: a browser session is no credential here.
import type { FastifyPluginAsync } from 'fastify';
import type { ProtectedResources } from '../../oauth/resources.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Storage } from '../../storage/stores.ts';
import { type RateLimitDeps, registerRateLimit } from '../rate-limit.ts';
import { registerApiV2 } from '../routes/api-v2.ts';
import { registerTokenInfo } from '../routes/token-info.ts';

export interface BearerApiDeps {
  storage: Storage;
  clock: Clock;
  baseUrl: string;
  rateLimit: RateLimitDeps;
  resources: ProtectedResources;
}

export const bearerApi: FastifyPluginAsync<BearerApiDeps> = async (app, { storage, clock, baseUrl, rateLimit, resources }) => {
  app.decorateRequest('accessToken', null);
  registerRateLimit(app, rateLimit);
  const bearer = { tokens: storage.tokens, clock };
  registerTokenInfo(app, { ...bearer, applications: storage.applications, resources });
  registerApiV2(app, { ...bearer, portfolios: storage.portfolios, users: storage.users, baseUrl, resources });
};
