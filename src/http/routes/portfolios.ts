// The signed-in person's portfolios: list, create, edit, delete. Every route needs a
// session; every form is CSRF-checked; every successful POST answers 303.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { portfolioFields } from '../../demo/portfolio-fields.ts';
import { OAuthError } from '../../oauth/errors.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Portfolio } from '../../domain/records.ts';
import type { PortfolioStore } from '../../storage/stores.ts';
import { formValuesOf, validatePortfolioForm } from '../../web/portfolio-form.ts';
import {
  type PortfolioNotice, renderDeletePortfolio, renderPortfolioForm, renderPortfolioList,
} from '../../web/portfolio-pages.ts';
import { refuseOtherMethods } from '../errors.ts';
import { recordIdFrom } from '../record-id.ts';
import type { Params } from '../form-body.ts';
import { requireSignedIn, verifiedForm } from '../page-guard.ts';
import type { Sessions, SignedIn } from '../sessions.ts';

export interface PortfolioPageDeps {
  portfolios: PortfolioStore;
  sessions: Sessions;
  clock: Clock;
}

const NOTICES: readonly PortfolioNotice[] = ['created', 'updated', 'deleted'];

/** Someone else's portfolio and one that does not exist look the same. */
const notFound = () => new OAuthError('not_found', 'There is no such portfolio in your account.');

function signedInAs(request: FastifyRequest) {
  const { user, session } = request.signedIn as SignedIn;
  return { name: user.name, email: user.email, csrfToken: session.csrfToken };
}

function sendPage(reply: FastifyReply, status: number, page: string) {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

export function registerPortfolioPages(app: FastifyInstance, deps: PortfolioPageDeps): void {
  const options = { config: { html: true }, onRequest: requireSignedIn(deps.sessions) };

  async function ownPortfolio(request: FastifyRequest): Promise<Portfolio> {
    const { id } = request.params as { id: string };
    const portfolioId = recordIdFrom(id);
    if (portfolioId === undefined) throw notFound();
    const portfolio = await deps.portfolios.findPortfolioOwnedBy(portfolioId, (request.signedIn as SignedIn).user.id);
    if (portfolio === undefined) throw notFound();
    return portfolio;
  }

  app.get('/portfolios', options, async (request, reply) => {
    const notice = (request.query as Params).notice;
    const portfolios = await deps.portfolios.listPortfoliosOwnedBy((request.signedIn as SignedIn).user.id);
    return sendPage(reply, 200, renderPortfolioList({
      signedInAs: signedInAs(request), portfolios,
      notice: NOTICES.find((known) => known === notice),
    }));
  });

  app.get('/portfolios/new', options, async (request, reply) => {
    const defaults = portfolioFields({ name: '', now: deps.clock.now() });
    return sendPage(reply, 200, renderPortfolioForm({ signedInAs: signedInAs(request), values: formValuesOf(defaults) }));
  });

  app.post('/portfolios/new', options, async (request, reply) => {
    const body = await verifiedForm(request, deps.sessions);
    const now = deps.clock.now();
    const result = validatePortfolioForm(body, now);
    if (!result.ok) {
      return sendPage(reply, 400, renderPortfolioForm({ signedInAs: signedInAs(request), values: result.values, errors: result.errors }));
    }
    // Fields the form does not show start from the defaults a new portfolio gets anywhere.
    const fields = portfolioFields({ name: result.changes.name, countryCode: result.changes.countryCode, now }, result.changes);
    await deps.portfolios.createPortfolio((request.signedIn as SignedIn).user.id, fields, now);
    return reply.redirect('/portfolios?notice=created', 303);
  });

  // The portfolio's own address in the web interface, which API records link to
  // (links.portfolio, DESIGN §5): its page is the one that shows and edits it.
  app.get('/portfolios/:id', options, async (request, reply) => {
    const portfolio = await ownPortfolio(request);
    return reply.redirect(`/portfolios/${portfolio.id}/edit`, 302);
  });

  app.get('/portfolios/:id/edit', options, async (request, reply) => {
    const portfolio = await ownPortfolio(request);
    return sendPage(reply, 200, renderPortfolioForm({ signedInAs: signedInAs(request), portfolioId: portfolio.id, values: formValuesOf(portfolio) }));
  });

  app.post('/portfolios/:id/edit', options, async (request, reply) => {
    const body = await verifiedForm(request, deps.sessions);
    const portfolio = await ownPortfolio(request);
    const now = deps.clock.now();
    const result = validatePortfolioForm(body, now);
    if (!result.ok) {
      return sendPage(reply, 400, renderPortfolioForm({ signedInAs: signedInAs(request), portfolioId: portfolio.id, values: result.values, errors: result.errors }));
    }
    const { id: _id, ownerId, createdAt: _created, updatedAt: _updated, ...current } = portfolio;
    const updated = await deps.portfolios.updatePortfolio(portfolio.id, ownerId, { ...current, ...result.changes }, now);
    if (updated === undefined) throw notFound();
    return reply.redirect('/portfolios?notice=updated', 303);
  });

  app.get('/portfolios/:id/delete', options, async (request, reply) => {
    const portfolio = await ownPortfolio(request);
    return sendPage(reply, 200, renderDeletePortfolio({ signedInAs: signedInAs(request), portfolio }));
  });

  app.post('/portfolios/:id/delete', options, async (request, reply) => {
    await verifiedForm(request, deps.sessions);
    const portfolio = await ownPortfolio(request);
    if (!(await deps.portfolios.deletePortfolio(portfolio.id, portfolio.ownerId))) throw notFound();
    return reply.redirect('/portfolios?notice=deleted', 303);
  });

  const html = { html: true };
  refuseOtherMethods(app, '/portfolios', ['GET'], html);
  refuseOtherMethods(app, '/portfolios/new', ['GET', 'POST'], html);
  refuseOtherMethods(app, '/portfolios/:id', ['GET'], html);
  refuseOtherMethods(app, '/portfolios/:id/edit', ['GET', 'POST'], html);
  refuseOtherMethods(app, '/portfolios/:id/delete', ['GET', 'POST'], html);
}
