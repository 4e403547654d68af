// What the CLI verbs and the demo seed do to storage, with the audit trail each leaves.
import type { Clock } from '../platform/clock.ts';
import { hashPassword } from '../platform/password.ts';
import type { RandomSource } from '../platform/random.ts';
import { generateClientId, generateCredential, hashCredential } from '../platform/secrets.ts';
import type { Application, User } from '../storage/records.ts';
import { StorageConflictError, type Storage } from '../storage/stores.ts';
import { CliError } from './errors.ts';

interface Deps { storage: Storage; clock: Clock; random: RandomSource }

export const DEFAULT_SCOPES = ['read'];

export async function createUser(deps: Deps, input: { email: string; password: string; name: string }): Promise<User> {
  const now = deps.clock.now();
  const passwordHash = await hashPassword(input.password);
  let user: User;
  try {
    user = await deps.storage.users.createUser({ email: input.email, name: input.name, passwordHash, now });
  } catch (error) {
    if (error instanceof StorageConflictError) throw new CliError(`a user with email ${input.email} already exists`);
    throw error;
  }
  await deps.storage.audit.recordEvent({
    type: 'user.created', userId: user.id, applicationId: null, ip: null, detail: {}, createdAt: now,
  });
  return user;
}

export async function findOwner(storage: Storage, email: string): Promise<User> {
  const user = await storage.users.findUserCredentials(email);
  if (user === undefined) throw new CliError(`no user with email ${email}`);
  const { passwordHash: _, ...owner } = user;
  return owner;
}

export interface NewApplicationInput {
  ownerId: number;
  name: string;
  redirectUris: string[];
  confidential: boolean;
  pkceRequired: boolean;
  scopes?: string[];
}

/** The secret is returned here and never again: only its hash is stored. */
export interface RegisteredApplication { application: Application; clientSecret: string }

export async function registerApplication(deps: Deps, input: NewApplicationInput): Promise<RegisteredApplication> {
  const now = deps.clock.now();
  const clientSecret = generateCredential('clientSecret', deps.random);
  const application = await deps.storage.applications.createApplication({
    ownerId: input.ownerId,
    name: input.name,
    clientId: generateClientId(deps.random),
    secretHash: hashCredential(clientSecret),
    redirectUris: input.redirectUris,
    confidential: input.confidential,
    pkceRequired: input.pkceRequired,
    scopes: input.scopes ?? DEFAULT_SCOPES,
  }, now);
  await deps.storage.audit.recordEvent({
    type: 'application.created', userId: input.ownerId, applicationId: application.id, ip: null,
    detail: { name: application.name }, createdAt: now,
  });
  return { application, clientSecret };
}

export async function rotateApplicationSecret(deps: Deps, clientId: string): Promise<RegisteredApplication> {
  const application = await deps.storage.applications.findApplicationByClientId(clientId);
  if (application === undefined) throw new CliError(`no application with client_id ${clientId}`);
  const now = deps.clock.now();
  const clientSecret = generateCredential('clientSecret', deps.random);
  const replaced = await deps.storage.applications.replaceApplicationSecret(application.id, hashCredential(clientSecret), now);
  if (!replaced) throw new CliError(`no application with client_id ${clientId}`);
  await deps.storage.audit.recordEvent({
    type: 'application.secret_rotated', userId: application.ownerId, applicationId: application.id, ip: null,
    detail: {}, createdAt: now,
  });
  return { application, clientSecret };
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
