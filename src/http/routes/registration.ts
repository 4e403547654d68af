// POST /oauth2/register, RFC 7591 §3 Dynamic Client Registration: parse, call the
// core (oauth/registration.ts), render. Not registered at all when registration is off.
import { addressKey } from '../../accounts/login-throttle.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OAuthError } from '../../oauth/errors.ts';
import { oauthPaths } from '../../oauth/metadata.ts';
import { type RegistrationDeps, registerClient } from '../../oauth/registration.ts';
import type { RateLimiter } from '../../platform/rate-limit/limiter.ts';
import { refuseOtherMethods } from '../errors.ts';
import { registrationSchema } from '../schemas/registration.ts';

export interface RegistrationRouteDeps extends RegistrationDeps {
  /** The initial access token (RFC 7591 §3), or null when registration is open. */
  initialAccessToken: string | null;
  limiter: RateLimiter;
}

/** Registrations per client address each hour: a client registers once, and a person retrying a few times fits. */
export const REGISTRATIONS_PER_HOUR = 20;
const HOUR_MS = 3_600_000;
/** Client metadata is small: ten redirect URIs and a name fit many times over. */
export const REGISTRATION_BODY_LIMIT = 16 * 1024;

export async function registerRegistration(app: FastifyInstance, deps: RegistrationRouteDeps): Promise<void> {
  // Its own context, so its body parsers are only its own: a JSON object as it is, nothing else.
  await app.register(async (context) => {
    context.removeAllContentTypeParsers();
    context.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: REGISTRATION_BODY_LIMIT }, (_request, body, done) => {
      try {
        done(null, JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body as Buffer)));
      } catch {
        done(new OAuthError('invalid_client_metadata', 'The request body is not valid JSON'));
      }
    });
    context.addContentTypeParser('*', { bodyLimit: REGISTRATION_BODY_LIMIT }, (_request, _payload, done) => {
      done(new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json (RFC 7591 §3.1)'));
    });

    context.post(oauthPaths.registration, {
      schema: registrationSchema,
      // The schema documents; the core decides (client-metadata.ts), without Ajv's type coercion in between.
      validatorCompiler: () => () => true,
      // Counted before the body is read, so a client sending garbage is limited too.
      onRequest: async (request, reply) => {
        const result = await deps.limiter.hit(`register:${addressKey(request.ip)}`, REGISTRATIONS_PER_HOUR, HOUR_MS, deps.clock.now());
        if (!result.allowed) {
          reply.header('retry-after', String(Math.max(1, Math.ceil(result.resetMs / 1000))));
          throw new OAuthError('rate_limited', `At most ${REGISTRATIONS_PER_HOUR} registrations an hour from one address; try again later`);
        }
        checkInitialAccessToken(request, reply, deps.initialAccessToken);
      },
    }, async (request, reply) => {
      const registered = await registerClient(request.body, request.ip, deps);
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return reply.code(201).send(registered);
    });
    refuseOtherMethods(context, oauthPaths.registration, ['POST']);
  });
}

/** Registration off: 404 for every request, whatever its body, as for a path never served. */
export async function refuseRegistration(app: FastifyInstance): Promise<void> {
  await app.register(async (context) => {
    context.removeAllContentTypeParsers();
    context.addContentTypeParser('*', { bodyLimit: REGISTRATION_BODY_LIMIT }, (_request, payload, done) => {
      payload.resume();
      payload.on('end', () => done(null, undefined));
    });
    context.all(oauthPaths.registration, async (request) => {
      throw new OAuthError('not_found', `No resource at ${request.method} ${oauthPaths.registration}`);
    });
  });
}

/** RFC 7591 §3: the initial access token is a bearer token (RFC 6750), compared in constant time. */
function checkInitialAccessToken(request: FastifyRequest, reply: { header(name: string, value: string): unknown }, expected: string | null): void {
  if (expected === null) return;
  const presented = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(request.headers.authorization ?? '')?.[1];
  if (presented !== undefined && timingSafeEqual(digest(presented), digest(expected))) return;
  // RFC 6750 §3.1: without credentials, a challenge with no error code.
  reply.header('www-authenticate', presented === undefined ? 'Bearer realm="folio"' : 'Bearer realm="folio", error="invalid_token"');
  throw new OAuthError('invalid_token', 'Registration needs the initial access token this server was given (Authorization: Bearer)');
}

const digest = (value: string) => createHash('sha256').update(value).digest();
