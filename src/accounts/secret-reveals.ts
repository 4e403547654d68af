// Showing a new client secret exactly once across a POST-redirect-GET (DESIGN §2: 303
// after every POST; a secret is shown once). The secret waits in the database sealed
// with a key derived from the browser's session id, which the database never holds (it
// keeps only the id's hash): a copy of the database alone cannot read it, it is handed
// out by one DELETE ... RETURNING, and any instance can serve the page after the redirect.
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { seal, unseal } from '../platform/sealing.ts';
import { hashCredential } from '../platform/secrets.ts';
import type { Storage } from '../storage/stores.ts';

export interface SecretRevealDeps {
  storage: Pick<Storage, 'secretReveals'>;
  clock: Clock;
  random: RandomSource;
}

/** Long enough to follow a redirect on a slow connection, short enough to be forgotten. */
export const SECRET_REVEAL_LIFETIME_MS = 10 * 60_000;

const context = (applicationId: number) => `folio client secret reveal ${applicationId}`;

export async function holdSecretForReveal(
  deps: SecretRevealDeps, input: { sessionId: string; applicationId: number; secret: string },
): Promise<void> {
  const now = deps.clock.now();
  await deps.storage.secretReveals.holdSecretReveal({
    sessionIdHash: hashCredential(input.sessionId),
    applicationId: input.applicationId,
    sealedSecret: seal(input.secret, input.sessionId, context(input.applicationId), deps.random),
    expiresAt: now + SECRET_REVEAL_LIFETIME_MS,
  }, now);
}

/** The secret waiting for this session, once; undefined on every later call. */
export async function takeSecretToReveal(
  deps: Omit<SecretRevealDeps, 'random'>, input: { sessionId: string; applicationId: number },
): Promise<string | undefined> {
  const sealed = await deps.storage.secretReveals.takeSecretReveal(hashCredential(input.sessionId), input.applicationId, deps.clock.now());
  return sealed === undefined ? undefined : unseal(sealed, input.sessionId, context(input.applicationId));
}
