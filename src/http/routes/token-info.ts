// GET /oauth2/token/info: what the bearer token is, as Doorkeeper-based services answer it.
import type { FastifyInstance } from 'fastify';
import type { BearerDeps } from '../../oauth/bearer.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import type { ApplicationStore } from '../../storage/stores.ts';
import { bearerAuthentication } from '../bearer-auth.ts';
import { refuseOtherMethods } from '../errors.ts';
import { tokenInfoSchema } from '../schemas/oauth.ts';

export function registerTokenInfo(app: FastifyInstance, deps: BearerDeps & { applications: Pick<ApplicationStore, 'findApplicationById'> }): void {
  // Any live token may describe itself, whatever its scope.
  app.get(oauthPaths.tokenInfo, { schema: tokenInfoSchema, config: { bearer: true }, onRequest: bearerAuthentication(deps, null) }, async (request) => {
    const token = request.accessToken!;
    const application = await deps.applications.findApplicationById(token.applicationId);
    return {
      resource_owner_id: token.userId,
      scope: token.scope,
      expires_in: Math.max(0, Math.floor((token.expiresAt - deps.clock.now()) / 1000)),
      application: { uid: application?.clientId ?? null },
      created_at: Math.floor(token.createdAt / 1000),
    };
  });
  refuseOtherMethods(app, oauthPaths.tokenInfo, ['GET']);
}
