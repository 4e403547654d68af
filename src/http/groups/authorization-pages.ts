// The pages of an authorization (RFC 6749 §4.1.1–4.1.2): the authorization
// endpoint with its consent form and out-of-band code page, and the sign-in and
// sign-up forms it sends people through. Browser pages: sessions and cookies.
import type { FastifyPluginAsync } from 'fastify';
import { oauthPaths } from '../../oauth/metadata.ts';
import type { ProtectedResources } from '../../oauth/resources.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PasswordCost } from '../../platform/password.ts';
import type { RandomSource } from '../../platform/random.ts';
import type { Storage } from '../../storage/stores.ts';
import { createLoginThrottle } from '../../accounts/login-throttle.ts';
import { registerAuthorize } from '../routes/authorize.ts';
import { registerSignIn } from '../routes/sign-in.ts';
import { registerSignUp } from '../routes/sign-up.ts';
import { type Sessions, registerSessionCookies } from '../sessions.ts';

export interface AuthorizationPagesDeps {
  storage: Storage;
  sessions: Sessions;
  clock: Clock;
  random: RandomSource;
  issuer: string;
  allowSignup: boolean;
  passwordCost: PasswordCost;
  resources: ProtectedResources;
}

export const authorizationPages: FastifyPluginAsync<AuthorizationPagesDeps> = async (app, deps) => {
  const { storage, sessions, clock, random, issuer, allowSignup, passwordCost, resources } = deps;
  await registerSessionCookies(app);
  const throttle = createLoginThrottle({ store: storage.loginThrottle, clock });
  registerAuthorize(app, { ...storage, storage, sessions, clock, random, issuer, resources, nativeCodePage: issuer + oauthPaths.nativeCode });
  registerSignIn(app, { storage, applications: storage.applications, sessions, throttle, clock, random, passwordCost, allowSignup });
  registerSignUp(app, { storage, sessions, throttle, clock, allowSignup, passwordCost });
};
