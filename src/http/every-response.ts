// The access log and the metrics must see every response. Fastify answers a
// malformed path (bad percent-encoding, a parameter over 100 characters) from
// `frameworkErrors`, before routing, and such a reply runs no hooks at all:
// without this, a scan of hostile URLs would leave no line and no count.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type ResponseObserver = (request: FastifyRequest, reply: FastifyReply) => void;

export type EveryResponse = ReturnType<typeof createEveryResponse>;

export function createEveryResponse() {
  const observers: ResponseObserver[] = [];
  return {
    /** Calls `observer` once each response is sent, routed or not. */
    observe(observer: ResponseObserver): void {
      observers.push(observer);
    },

    /** Call once, on the root instance: one hook calls every observer. */
    attach(app: FastifyInstance): void {
      app.addHook('onResponse', (request, reply, done) => {
        for (const observer of observers) observer(request, reply);
        done();
      });
    },

    /** Call from `frameworkErrors` before sending, so the reply is observed like any other. */
    observeUnrouted(request: FastifyRequest, reply: FastifyReply): void {
      // When Fastify's own onResponse would run: the response finished, or failed.
      const observeOnce = () => {
        reply.raw.off('finish', observeOnce).off('error', observeOnce);
        for (const observer of observers) observer(request, reply);
      };
      reply.raw.on('finish', observeOnce).on('error', observeOnce);
    },
  };
}
