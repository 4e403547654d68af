// Registering and managing applications, shared by the CLI and the API settings pages.
// Every change leaves an audit event; a client secret leaves this module once, in the
// return value of registerApplication or rotateApplicationSecret (and, for a web page,
// sealed for its one showing), and only its hash is kept.
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { validateRedirectUri } from '../platform/redirect-uris.ts';
import { generateClientId, generateCredential, hashCredential } from '../platform/secrets.ts';
import type { Application, AuditEventType, NewAuditEvent, OwnedApplication } from '../domain/records.ts';
import type { Storage } from '../storage/stores.ts';
import { AccountError } from './errors.ts';
import { hasUnsafeCharacters } from './names.ts';
import type { SecretRevealer } from './secret-reveals.ts';

export interface ApplicationDeps {
  storage: Pick<Storage, 'applications'>;
  clock: Clock;
  random: RandomSource;
}

export const DEFAULT_SCOPES = ['read'];
export const MAX_APPLICATION_NAME_LENGTH = 100;
export const MAX_REDIRECT_URIS = 20;

/** What the owner of an application chooses. */
export interface ApplicationSettings {
  name: string;
  redirectUris: string[];
  confidential: boolean;
  pkceRequired: boolean;
}

/** The secret is returned here and never again: only its hash is stored. */
export interface RegisteredApplication { application: OwnedApplication; clientSecret: string }

export function validApplicationName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || [...trimmed].length > MAX_APPLICATION_NAME_LENGTH) {
    throw new AccountError(`application name must be 1 to ${MAX_APPLICATION_NAME_LENGTH} characters`, 'invalid', 'name');
  }
  if (hasUnsafeCharacters(trimmed)) {
    throw new AccountError('application name must not contain control or text-direction characters', 'invalid', 'name');
  }
  return trimmed;
}

/** The one check of redirect URIs for every way an application is registered or edited. */
export function validRedirectUris(uris: readonly string[]): string[] {
  if (uris.length === 0) throw new AccountError('at least one redirect URI is needed', 'invalid', 'redirect_uris');
  const unique = [...new Set(uris)];
  if (unique.length > MAX_REDIRECT_URIS) {
    throw new AccountError(`at most ${MAX_REDIRECT_URIS} redirect URIs can be registered`, 'invalid', 'redirect_uris');
  }
  for (const uri of unique) {
    const problem = validateRedirectUri(uri);
    if (problem !== null) throw new AccountError(problem, 'invalid', 'redirect_uris');
  }
  return unique;
}

function validSettings(settings: ApplicationSettings): ApplicationSettings {
  return { ...settings, name: validApplicationName(settings.name), redirectUris: validRedirectUris(settings.redirectUris) };
}

/** The event a change to `application` is recorded with, in the change's own transaction. */
function eventFor(type: AuditEventType, ip: string | null, now: number): (application: Application) => NewAuditEvent {
  // The name travels with the event so the activity page can still name a deleted application.
  return (application) => ({
    type, userId: application.ownerId, applicationId: application.id, ip, detail: { name: application.name }, createdAt: now,
  });
}

export async function registerApplication(
  deps: ApplicationDeps,
  input: ApplicationSettings & { ownerId: number; scopes?: string[]; ip?: string | null },
  revealer?: SecretRevealer,
): Promise<RegisteredApplication> {
  const settings = validSettings(input);
  const now = deps.clock.now();
  const clientSecret = generateCredential('clientSecret', deps.random);
  const application = await deps.storage.applications.createApplication({
    ownerId: input.ownerId,
    ...settings,
    clientId: generateClientId(deps.random),
    secretHash: hashCredential(clientSecret),
    scopes: input.scopes ?? DEFAULT_SCOPES,
  }, now, eventFor('application.created', input.ip ?? null, now), revealer && ((created) => revealer(created.id, clientSecret)));
  return { application, clientSecret };
}

/** The application `ownerId` owns; someone else's is reported exactly like a missing one. */
export async function findOwnedApplication(storage: Pick<Storage, 'applications'>, id: number, ownerId: number): Promise<OwnedApplication> {
  const application = Number.isSafeInteger(id) ? await storage.applications.findApplicationById(id) : undefined;
  if (application === undefined || application.ownerId !== ownerId) throw new AccountError('no such application', 'not_found');
  return application as OwnedApplication;
}

/** A new secret; the old one stops working the moment this returns. */
export async function rotateApplicationSecret(
  deps: ApplicationDeps, application: OwnedApplication, ip: string | null = null, revealer?: SecretRevealer,
): Promise<RegisteredApplication> {
  const now = deps.clock.now();
  const clientSecret = generateCredential('clientSecret', deps.random);
  const replaced = await deps.storage.applications.replaceApplicationSecret(
    application.id, hashCredential(clientSecret), now, eventFor('application.secret_rotated', ip, now)(application),
    revealer?.(application.id, clientSecret),
  );
  if (!replaced) throw new AccountError(`no application with client_id ${application.clientId}`, 'not_found');
  return { application, clientSecret };
}

export async function updateApplication(
  deps: ApplicationDeps, application: OwnedApplication, changes: ApplicationSettings, ip: string | null = null,
): Promise<Application> {
  const settings = validSettings(changes);
  const now = deps.clock.now();
  const updated = await deps.storage.applications.updateApplication(
    application.id, application.ownerId, settings, now, eventFor('application.updated', ip, now),
  );
  if (updated === undefined) throw new AccountError('no such application', 'not_found');
  return updated;
}

/** Deletes the application with every grant, code and token it holds. */
export async function deleteApplication(deps: ApplicationDeps, application: OwnedApplication, ip: string | null = null): Promise<void> {
  const now = deps.clock.now();
  const event = eventFor('application.deleted', ip, now)(application);
  if (!(await deps.storage.applications.deleteApplication(application.id, application.ownerId, event))) {
    throw new AccountError('no such application', 'not_found');
  }
}
