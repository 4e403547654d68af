// The account operations (src/accounts) as the CLI verbs use them: the same rules and
// audit trail as the web pages, with a refusal turned into a one-line CliError.
import * as applications from '../accounts/applications.ts';
import type { RegisteredApplication } from '../accounts/applications.ts';
import { AccountError } from '../accounts/errors.ts';
import * as users from '../accounts/users.ts';
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import type { OwnedApplication, User } from '../domain/records.ts';
import type { Storage } from '../storage/stores.ts';
import { CliError } from './errors.ts';

interface Deps { storage: Storage; clock: Clock; random: RandomSource }

export type { RegisteredApplication } from '../accounts/applications.ts';

/** Runs an account operation, reporting its refusal the way the CLI reports errors. */
export async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AccountError) throw new CliError(error.message);
    throw error;
  }
}

export function createUser(deps: Deps, input: { email: string; password: string; name: string }): Promise<User> {
  return asCli(() => users.createUser(deps, input));
}

export async function findOwner(storage: Storage, email: string): Promise<User> {
  const user = await storage.users.findUserCredentials(email);
  if (user === undefined) throw new CliError(`no user with email ${email}`);
  const { passwordHash: _, ...owner } = user;
  return owner;
}

export function registerApplication(deps: Deps, input: applications.ApplicationSettings & { ownerId: number }): Promise<RegisteredApplication> {
  return asCli(() => applications.registerApplication(deps, input));
}

export async function rotateApplicationSecret(deps: Deps, clientId: string): Promise<RegisteredApplication> {
  const application = await deps.storage.applications.findApplicationByClientId(clientId);
  if (application === undefined) throw new CliError(`no application with client_id ${clientId}`);
  if (application.registration !== 'person') throw new CliError(`${clientId} registered itself; only a person's application has a secret to rotate`);
  return asCli(() => applications.rotateApplicationSecret(deps, application as OwnedApplication));
}

/** The JSON shape `app create` and `app rotate-secret` print. */
export function applicationJson({ application, clientSecret }: RegisteredApplication) {
  return {
    client_id: application.clientId,
    client_secret: clientSecret,
    name: application.name,
    redirect_uris: application.redirectUris,
    confidential: application.confidential,
    pkce_required: application.pkceRequired,
    scopes: application.scopes,
  };
}
