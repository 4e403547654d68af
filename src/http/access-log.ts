// One access-log line per request, when it completes. Fastify's default writes
// two (received and completed); at API rates that doubled the logging cost
// without adding anything an operator uses.
import type { FastifyInstance } from 'fastify';
import type { EveryResponse } from './every-response.ts';

export function registerAccessLog(app: FastifyInstance, everyResponse: EveryResponse): void {
  everyResponse.observe(app, (request, reply) => {
    request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  });
}
