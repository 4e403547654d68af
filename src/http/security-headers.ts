// Headers for every response. Pages and protocol responses may carry
// credentials or codes, so nothing is cached or framed and no referrer leaks
// a code (DESIGN §2, RFC 6749 §10.13 clickjacking, RFC 9700 §4.2.4).
import type { FastifyInstance, FastifyReply } from 'fastify';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * RFC 6797, sent only when the base URL is https: browsers then refuse plain http to
 * this host for a year. Not includeSubDomains: what runs on names under Folio's is
 * not Folio's to decide.
 */
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

export function setSecurityHeaders(reply: FastifyReply, overHttps: boolean): void {
  if (overHttps) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  if (!reply.hasHeader('cache-control')) {
    reply.header('cache-control', 'no-store');
    reply.header('pragma', 'no-cache');
  }
}

export function registerSecurityHeaders(app: FastifyInstance, overHttps: boolean): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    setSecurityHeaders(reply, overHttps);
    done(null, payload);
  });
}
