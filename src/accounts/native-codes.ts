// The code of an out-of-band authorization (urn:ietf:wg:oauth:2.0:oob) is shown on
// Folio's own page for the user to copy into the application. Were it carried in
// that page's URL, the page would show any code a link held as if it were the
// visitor's own (code injection, and a Folio page for phishing). Instead it waits
// on the browser's session, sealed with the session id as a new client secret is
// (secret-reveals.ts), and the page shows it once.
import { lifetimes } from '../oauth/lifetimes.ts';
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { seal, unseal } from '../platform/sealing.ts';
import { hashCredential, isWellFormedCredential } from '../platform/secrets.ts';
import type { Storage } from '../storage/stores.ts';

const CONTEXT = 'folio out-of-band authorization code';

export interface NativeCodeDeps {
  storage: Pick<Storage, 'sessions'>;
  clock: Clock;
  random: RandomSource;
}

/** Holds the code for the browser whose session id this is, replacing one still waiting. */
export async function holdNativeCode(deps: NativeCodeDeps, sessionId: string, code: string): Promise<void> {
  const sealed = seal(code, sessionId, CONTEXT, deps.random);
  await deps.storage.sessions.holdNativeCode(hashCredential(sessionId), sealed, deps.clock.now() + lifetimes.authorizationCode);
}

/** The code waiting for this browser, once; undefined on every later call, or without a session. */
export async function takeNativeCode(deps: Omit<NativeCodeDeps, 'random'>, sessionId: string | undefined): Promise<string | undefined> {
  if (sessionId === undefined || !isWellFormedCredential('session', sessionId)) return undefined;
  const sealed = await deps.storage.sessions.takeNativeCode(hashCredential(sessionId), deps.clock.now());
  return sealed === undefined ? undefined : unseal(sealed, sessionId, CONTEXT);
}
