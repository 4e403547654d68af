// A request's logger is made only when the request logs, and then writes what
// pino's child would have: bound to the request's id, at the route's level.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { pino } from 'pino';
import { deferredChildLogger } from '../../src/http/request-logger.ts';

function appLoggingTo(lines: Record<string, unknown>[]) {
  const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
  const made = { children: 0 };
  const makeChild = logger.child;
  // Children inherit this, so a child's own children are counted too, and made from it.
  logger.child = function (this: typeof logger, ...args: Parameters<typeof logger.child>) {
    made.children++;
    return makeChild.apply(this, args);
  } as typeof logger.child;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: deferredChildLogger,
  });
  app.get('/quiet', async (request) => ({ level: request.log.level }));
  app.get('/loud', async (request) => {
    request.log.error({ detail: 1 }, 'first');
    request.log.info('second');
    request.log.debug('below the level');
    return {};
  });
  app.get('/errors-only', { logLevel: 'error' }, async (request) => {
    request.log.info('not at this route\'s level');
    request.log.warn('nor this');
    request.log.error('this');
    return {};
  });
  app.get('/grandchild', async (request) => {
    request.log.child({ step: 'inner' }).info('nested');
    return {};
  });
  return { app, made };
}

/** The app, ready, with the children Fastify makes for itself at start-up left out of the count. */
async function readyAppLoggingTo(lines: Record<string, unknown>[]) {
  const ready = appLoggingTo(lines);
  await ready.app.ready();
  ready.made.children = 0;
  return ready;
}

describe('the request logger', () => {
  it('makes no child logger for requests that do not log, and reads the level without one', async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, made } = await readyAppLoggingTo(lines);
    for (let index = 0; index < 3; index++) {
      const response = await app.inject({ method: 'GET', url: '/quiet' });
      assert.deepEqual(response.json(), { level: 'info' });
    }
    assert.equal(made.children, 0);
    assert.deepEqual(lines, []);
    await app.close();
  });

  it('writes a logging request\'s lines bound to its id, through one child', async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, made } = await readyAppLoggingTo(lines);
    await app.inject({ method: 'GET', url: '/quiet' });
    await app.inject({ method: 'GET', url: '/loud' });
    assert.equal(made.children, 1);
    assert.deepEqual(lines.map(({ level, msg, detail, reqId }) => ({ level, msg, detail, reqId })), [
      { level: 50, msg: 'first', detail: 1, reqId: 'req-2' },
      { level: 30, msg: 'second', detail: undefined, reqId: 'req-2' },
    ]);
    await app.close();
  });

  it('keeps a route\'s own level, and children of the request\'s logger', async () => {
    const lines: Record<string, unknown>[] = [];
    const { app } = await readyAppLoggingTo(lines);
    await app.inject({ method: 'GET', url: '/errors-only' });
    await app.inject({ method: 'GET', url: '/grandchild' });
    assert.deepEqual(lines.map(({ msg, reqId, step }) => ({ msg, reqId, step })), [
      { msg: 'this', reqId: 'req-1', step: undefined },
      { msg: 'nested', reqId: 'req-2', step: 'inner' },
    ]);
    await app.close();
  });
});
