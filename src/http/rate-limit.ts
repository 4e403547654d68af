// Bearer API rate limits per application and user (DESIGN §2), with the
// RateLimit-* fields of draft-ietf-httpapi-ratelimit-headers on every answer.
// Not @fastify/rate-limit: its stores count by the wall clock, not the injected
// Clock, and do not warn when Redis fails open, so ours would stay beneath it as
// custom stores, with its promise per request and a hook of our own for RateLimit-Policy.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAuthError } from '../oauth/errors.ts';
import type { Clock } from '../platform/clock.ts';
import type { RateLimitResult, RateLimiter } from '../platform/rate-limit/limiter.ts';

export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitDeps {
  limiter: RateLimiter;
  /** Requests per application and user each window. */
  limit: number;
  clock: Clock;
  /** Called for each refused request, e.g. to count it in metrics. */
  onRejected?: (key: string) => void;
}

/** Limits every route of `app`, and closes the limiter when `app` closes. */
export function registerRateLimit(app: FastifyInstance, deps: RateLimitDeps): void {
  app.addHook('onClose', async () => deps.limiter.close());
  countAgainstRateLimit(app, deps);
}

/** Limits every route of `app` with a limiter that a group registered before closes. */
export function countAgainstRateLimit(app: FastifyInstance, deps: RateLimitDeps): void {
  const windowSeconds = RATE_LIMIT_WINDOW_MS / 1000;
  /** Sets the RateLimit-* fields; returns the error to answer with when over the limit. */
  const answer = (key: string, result: RateLimitResult, reply: FastifyReply): OAuthError | undefined => {
    const resetSeconds = Math.max(1, Math.ceil(result.resetMs / 1000));
    reply.header('ratelimit-limit', String(result.limit));
    reply.header('ratelimit-remaining', String(result.remaining));
    reply.header('ratelimit-reset', String(resetSeconds));
    reply.header('ratelimit-policy', `${result.limit};w=${windowSeconds}`);
    if (result.allowed) return undefined;
    deps.onRejected?.(key);
    reply.header('retry-after', String(resetSeconds));
    return new OAuthError('rate_limited', `Too many requests for this application and user; try again in ${resetSeconds} s`);
  };
  // preHandler runs after every onRequest hook, so bearer authentication (a
  // route's onRequest) has set request.accessToken by now; a request that
  // failed it never gets here, and is not counted. A callback hook: the
  // in-memory limiter answers without a promise.
  app.addHook('preHandler', (request, reply, done) => {
    const token = request.accessToken;
    if (!token) return done();
    const key = `${token.applicationId}:${token.userId}`;
    let outcome: RateLimitResult | Promise<RateLimitResult>;
    try {
      outcome = deps.limiter.hit(key, deps.limit, RATE_LIMIT_WINDOW_MS, deps.clock.now());
    } catch (error) {
      return done(error as Error);
    }
    // A throw inside the promise chain must reach done, or it would be an unhandled rejection.
    if (outcome instanceof Promise) outcome.then((result) => answer(key, result, reply)).then((refusal) => done(refusal), done);
    else done(answer(key, outcome, reply));
  });
}
