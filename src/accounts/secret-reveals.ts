// Showing a new client secret exactly once across a POST-redirect-GET (DESIGN §2: 303
// after every POST; a secret is shown once). The secret waits in the database sealed
// with a key derived from the browser's session id, which the database never holds (it
// keeps only the id's hash): a copy of the database alone cannot read it, it is handed
// out by one DELETE ... RETURNING, and any instance can serve the page after the redirect.
// It is written in the transaction that stores the secret's hash (applications.ts): a
// rotation whose new secret could not be held for showing leaves the old one working.
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { seal, unseal } from '../platform/sealing.ts';
import { hashCredential } from '../platform/secrets.ts';
import type { SecretReveal } from '../domain/records.ts';
import type { Storage } from '../storage/stores.ts';

/** Seals an application's new secret for its one showing. */
export type SecretRevealer = (applicationId: number, secret: string) => SecretReveal;

/** Long enough to follow a redirect on a slow connection, short enough to be forgotten. */
export const SECRET_REVEAL_LIFETIME_MS = 10 * 60_000;

const context = (applicationId: number) => `folio client secret reveal ${applicationId}`;

/** Reveals to the browser holding `sessionId`, for registerApplication and rotateApplicationSecret. */
export function revealTo(deps: { clock: Clock; random: RandomSource }, sessionId: string): SecretRevealer {
  return (applicationId, secret) => ({
    sessionIdHash: hashCredential(sessionId),
    applicationId,
    sealedSecret: seal(secret, sessionId, context(applicationId), deps.random),
    expiresAt: deps.clock.now() + SECRET_REVEAL_LIFETIME_MS,
  });
}

/** The secret waiting for this session, once; undefined on every later call. */
export async function takeSecretToReveal(
  deps: { storage: Pick<Storage, 'secretReveals'>; clock: Clock }, input: { sessionId: string; applicationId: number },
): Promise<string | undefined> {
  const sealed = await deps.storage.secretReveals.takeSecretReveal(hashCredential(input.sessionId), input.applicationId, deps.clock.now());
  return sealed === undefined ? undefined : unseal(sealed, input.sessionId, context(input.applicationId));
}
