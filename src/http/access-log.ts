// One access-log line per request, when it completes. Fastify's default writes
// two (received and completed); at API rates that doubled the logging cost
// without adding anything an operator uses.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createAccessLogWriter } from '../platform/logger.ts';
import type { EveryResponse } from './every-response.ts';

export function registerAccessLog(app: FastifyInstance, everyResponse: EveryResponse, logger: Logger): void {
  const writeLine = createAccessLogWriter(logger);
  everyResponse.observe((request, reply) => {
    writeLine({ reqId: request.id, req: request, statusCode: reply.statusCode, responseTime: reply.elapsedTime });
  });
}
