// With FOLIO_TRUST_PROXY off, X-Forwarded-For is ignored (anyone can send it), so
// behind a proxy every request seems to come from the proxy: sign-in limits per
// address then count everyone together, and Activity shows the proxy's address.
// The first such request says so in the log; later ones say nothing.
import type { FastifyInstance } from 'fastify';

export function warnOnceOfForwardedRequests(app: FastifyInstance): void {
  let warned = false;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!warned && request.headers['x-forwarded-for'] !== undefined) {
      warned = true;
      request.log.warn(
        { peer: request.socket.remoteAddress },
        'a request carries X-Forwarded-For but FOLIO_TRUST_PROXY is off, so it is ignored and every client behind that proxy '
        + 'shares its address for sign-in limits and Activity; if Folio runs behind a proxy, set FOLIO_TRUST_PROXY to its address or hop count',
      );
    }
    done();
  });
}
