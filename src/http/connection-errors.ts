// Answers Fastify would otherwise give in its own shape ({"error":"Bad Request",
// "message":..., "statusCode":...}) rather than RFC 6749 §5.2's {error,
// error_description}: requests Node's HTTP parser refuses, which never reach a
// route or hook, and requests that still arrive on an open connection while the
// server shuts down.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../oauth/errors.ts';
import { sendError } from './errors.ts';

/** Fastify's clientErrorHandler: the parser refused the request, so the socket gets a raw answer and is closed. */
export function answerMalformedHttp(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, description] = error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'The request headers are too large']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'The request did not arrive in time']
    : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify(new OAuthError('invalid_request', description).toJSON());
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

/**
 * Once close() is called, new connections are refused by the socket, but a
 * request on a connection already open (keep-alive, pipelined) still arrives: it
 * gets 503 temporarily_unavailable with Retry-After, and the connection closes.
 */
export function refuseRequestsWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // A callback hook that answers does not call done: the answer ends the request.
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('connection', 'close');
    sendError(request, reply, new OAuthError('temporarily_unavailable', 'The server is shutting down; try again shortly'));
  });
}
