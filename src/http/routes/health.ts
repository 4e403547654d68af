import type { FastifyInstance } from 'fastify';
import type { Storage } from '../../storage/stores.ts';

export function registerHealth(app: FastifyInstance, deps: { storage: Pick<Storage, 'isReachable'> }): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (await deps.storage.isReachable()) return { status: 'ready' };
    return reply.code(503).send({ status: 'unavailable', error: 'temporarily_unavailable', error_description: 'The database is not reachable' });
  });
}
