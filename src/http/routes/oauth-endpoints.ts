// POST /oauth2/token, /oauth2/revoke and /oauth2/introspect: parse, call the core, render.
import type { FastifyInstance } from 'fastify';
import { introspectToken, type IntrospectionDeps } from '../../oauth/introspection.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import { revokeToken, type RevocationDeps } from '../../oauth/revocation.ts';
import { handleTokenRequest, type TokenEndpointDeps } from '../../oauth/token-endpoint.ts';
import { clientRequestInput, revocationRequestInput } from '../client-request.ts';
import { refuseOtherMethods } from '../errors.ts';
import { introspectionSchema, revocationSchema, tokenSchema } from '../schemas/oauth.ts';

export type OAuthEndpointDeps = RevocationDeps & IntrospectionDeps & TokenEndpointDeps;

export function registerOAuthEndpoints(app: FastifyInstance, deps: OAuthEndpointDeps): void {
  app.post(oauthPaths.token, { schema: tokenSchema }, async (request) => {
    return handleTokenRequest(clientRequestInput(request), deps);
  });
  app.post(oauthPaths.revocation, { schema: revocationSchema }, async (request, reply) => {
    await revokeToken(revocationRequestInput(request), deps);
    // RFC 7009 §2.2: 200 whether or not the token was known, and clients ignore the
    // body; it is `{}` as JSON because some HTTP clients (simple-oauth2's) require JSON.
    return reply.code(200).type('application/json; charset=utf-8').send('{}');
  });
  app.post(oauthPaths.introspection, { schema: introspectionSchema }, async (request) => {
    return introspectToken(clientRequestInput(request), deps);
  });
  for (const path of [oauthPaths.token, oauthPaths.revocation, oauthPaths.introspection]) {
    refuseOtherMethods(app, path, ['POST']);
  }
}
