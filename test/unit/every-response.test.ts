// Replies Fastify sends from frameworkErrors run no hooks; every-response.ts
// observes them on the same response events as Fastify's onResponse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createEveryResponse } from '../../src/http/every-response.ts';

function unroutedReply() {
  const raw = new EventEmitter();
  return { request: {} as FastifyRequest, reply: { raw } as unknown as FastifyReply, raw };
}

test('an unrouted reply is observed once, when it finishes or when it fails', async () => {
  const app = Fastify();
  const everyResponse = createEveryResponse();
  const seen: string[] = [];
  everyResponse.observe(() => seen.push('access log'));
  everyResponse.observe(() => seen.push('metrics'));

  const finished = unroutedReply();
  everyResponse.observeUnrouted(finished.request, finished.reply);
  finished.raw.emit('finish');
  assert.deepEqual(seen, ['access log', 'metrics']);
  assert.equal(finished.raw.listenerCount('finish') + finished.raw.listenerCount('error'), 0, 'no listener is left behind');

  seen.length = 0;
  const failed = unroutedReply();
  everyResponse.observeUnrouted(failed.request, failed.reply);
  failed.raw.emit('error', new Error('the socket broke'));
  assert.deepEqual(seen, ['access log', 'metrics']);
  assert.equal(failed.raw.listenerCount('finish') + failed.raw.listenerCount('error'), 0, 'no listener is left behind');
  await app.close();
});

test('a routed reply is observed once by every observer, through the one hook', async () => {
  const app = Fastify();
  const everyResponse = createEveryResponse();
  everyResponse.attach(app);
  const seen: string[] = [];
  everyResponse.observe((request, reply) => seen.push(`access log ${request.url} ${reply.statusCode}`));
  everyResponse.observe((request, reply) => seen.push(`metrics ${request.url} ${reply.statusCode}`));
  app.get('/here', async () => ({ ok: true }));
  assert.equal((await app.inject('/here')).statusCode, 200);
  assert.equal((await app.inject('/nowhere')).statusCode, 404);
  assert.deepEqual(seen, ['access log /here 200', 'metrics /here 200', 'access log /nowhere 404', 'metrics /nowhere 404']);
  await app.close();
});
