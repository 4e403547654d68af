// The bearer-protected portfolio API. Every path answers with and without ".json".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serializeOnePortfolio, serializePortfolioList } from '../../api/portfolio-serializer.ts';
import { serializeMyUser } from '../../api/user-serializer.ts';
import type { BearerDeps } from '../../oauth/bearer.ts';
import type { ProtectedResources } from '../../oauth/resources.ts';
import { OAuthError } from '../../oauth/errors.ts';
import type { Portfolio } from '../../domain/records.ts';
import type { PortfolioStore, UserStore } from '../../storage/stores.ts';
import { bearerProtected } from '../bearer-auth.ts';
import { refuseOtherMethods } from '../errors.ts';
import { recordIdFrom } from '../record-id.ts';
import { myUserSchema, onePortfolioSchema, portfolioListSchema } from '../schemas/api.ts';

export interface ApiDeps extends BearerDeps {
  portfolios: Pick<PortfolioStore, 'listPortfoliosOwnedBy' | 'findPortfolioOwnedBy'>;
  users: Pick<UserStore, 'findUserById'>;
  baseUrl: string;
  resources: ProtectedResources;
}

export function registerApiV2(app: FastifyInstance, deps: ApiDeps): void {
  const options = bearerProtected(deps, { resource: deps.resources.api, scope: 'read' });
  const tokenOf = (request: FastifyRequest) => request.accessToken!;
  // Each list's JSON, made by the route's response schema, lives as long as the
  // list: a store that answers with the same list object until the data changes
  // (storage/cache/caching-stores.ts) has its JSON made once, not on every request.
  const listBodies = new WeakMap<readonly Portfolio[], string>();

  for (const path of ['/api/v2/portfolios', '/api/v2/portfolios.json']) {
    app.get(path, { ...options, schema: portfolioListSchema }, async (request, reply) => {
      const portfolios = await deps.portfolios.listPortfoliosOwnedBy(tokenOf(request).userId);
      let body = listBodies.get(portfolios);
      if (body === undefined) {
        body = reply.serialize(serializePortfolioList(portfolios, deps.baseUrl)) as string;
        listBodies.set(portfolios, body);
      }
      // A string of JSON goes out as it is.
      return reply.type('application/json; charset=utf-8').send(body);
    });
    refuseOtherMethods(app, path, ['GET']);
  }

  app.get<{ Params: { id: string } }>('/api/v2/portfolios/:id', { ...options, schema: onePortfolioSchema }, async (request) => {
    const id = recordIdFrom(request.params.id.replace(/\.json$/, ''));
    // Someone else's portfolio is "not found", not "forbidden": its existence is not ours to reveal.
    const portfolio = id === undefined ? undefined : await deps.portfolios.findPortfolioOwnedBy(id, tokenOf(request).userId);
    if (portfolio === undefined) throw new OAuthError('not_found', 'No such portfolio');
    return serializeOnePortfolio(portfolio, deps.baseUrl);
  });
  refuseOtherMethods(app, '/api/v2/portfolios/:id', ['GET']);

  for (const path of ['/api/v2/my_user', '/api/v2/my_user.json']) {
    app.get(path, { ...options, schema: myUserSchema }, async (request) => {
      const user = await deps.users.findUserById(tokenOf(request).userId);
      if (user === undefined) throw new OAuthError('invalid_token', 'The user of this token no longer exists');
      return serializeMyUser(user, deps.baseUrl);
    });
    refuseOtherMethods(app, path, ['GET']);
  }
}
