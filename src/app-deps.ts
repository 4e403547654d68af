import type { RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Clock } from './platform/clock.ts';
import type { PasswordCost } from './platform/password.ts';
import type { RandomSource } from './platform/random.ts';
import type { Storage } from './storage/stores.ts';

/** Everything buildApp needs from outside; tests pass fakes for clock and random. */
export interface AppDeps {
  config: Config;
  storage: Storage;
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  /** Redis rate-limit keys start with this (default folio:rl:); tests sharing a server make it unique. */
  rateLimitKeyPrefix?: string;
  /** The cost passwords are hashed at; PASSWORD_COST unless tests ask for a cheaper one. */
  passwordCost?: PasswordCost;
  /** How long a client ID metadata document may take to arrive; safe-fetch's default unless tests ask for less. */
  clientDocumentTimeoutMs?: number;
  /** Sees every route as it is registered (tests check the OpenAPI document covers them). */
  onRoute?: (route: RouteOptions) => void;
}
