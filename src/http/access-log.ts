// One access-log line per request, when it completes. Fastify's default writes
// two (received and completed); at API rates that doubled the logging cost
// without adding anything an operator uses.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { createAccessLogWriter } from '../platform/logger.ts';

export function accessLog(logger: Logger): (request: FastifyRequest, reply: FastifyReply) => void {
  const writeLine = createAccessLogWriter(logger);
  return (request, reply) => {
    writeLine({ reqId: request.id, req: request, statusCode: reply.statusCode, responseTime: reply.elapsedTime });
  };
}
