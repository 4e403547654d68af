// GET /oauth2/token/info: what the bearer token is, as Doorkeeper-based services answer it.
import type { FastifyInstance } from 'fastify';
import type { BearerDeps } from '../../oauth/bearer.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import type { ProtectedResources } from '../../oauth/resources.ts';
import type { ApplicationStore } from '../../storage/stores.ts';
import { bearerProtected } from '../bearer-auth.ts';
import { refuseOtherMethods } from '../errors.ts';
import { tokenInfoSchema } from '../schemas/oauth.ts';

export interface TokenInfoDeps extends BearerDeps {
  applications: Pick<ApplicationStore, 'findApplicationById'>;
  resources: ProtectedResources;
}

export function registerTokenInfo(app: FastifyInstance, deps: TokenInfoDeps): void {
  // Any live token of the portfolio API may describe itself, whatever its scope: token
  // info came with that API, and an MCP client's token is for the MCP server alone.
  const options = bearerProtected(deps, { resource: deps.resources.api, scope: null });
  app.get(oauthPaths.tokenInfo, { schema: tokenInfoSchema, ...options }, async (request) => {
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
