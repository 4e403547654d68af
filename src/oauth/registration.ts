// RFC 7591 §3 Dynamic Client Registration: a client registers itself and gets a
// client_id (and a secret, when it asked for a secret-based authentication method).
// Nothing is stored unless the whole request is valid.
import type { Clock } from '../platform/clock.ts';
import type { RandomSource } from '../platform/random.ts';
import { generateClientId, generateCredential, hashCredential } from '../platform/secrets.ts';
import type { ApplicationStore } from '../storage/stores.ts';
import { validateClientMetadata } from './client-metadata.ts';
import { formatScope } from './scopes.ts';

export interface RegistrationDeps {
  applications: Pick<ApplicationStore, 'registerClient'>;
  clock: Clock;
  random: RandomSource;
}

/** RFC 7591 §3.2.1: the client's identifier and the metadata as registered. */
export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: 0;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  grant_types: string[];
  response_types: string[];
  scope: string;
}

export async function registerClient(body: unknown, ip: string | null, deps: RegistrationDeps): Promise<RegistrationResponse> {
  const metadata = validateClientMetadata(body);
  const now = deps.clock.now();
  // A public client gets a secret too, as every application has one (DESIGN §2), but is
  // never told it: any secret it sends is then wrong, as it is for a person's public application.
  const clientSecret = generateCredential('clientSecret', deps.random);
  const application = await deps.applications.registerClient({
    clientId: generateClientId(deps.random),
    name: metadata.clientName,
    redirectUris: metadata.redirectUris,
    confidential: metadata.confidential,
    // RFC 9700 §2.1.1: PKCE for every client. No person chose otherwise for this one.
    pkceRequired: true,
    scopes: metadata.scope,
    secretHash: hashCredential(clientSecret),
  }, now, (registered) => ({
    type: 'application.registered', userId: null, applicationId: registered.id, ip,
    detail: { name: registered.name, registration: 'dynamic', token_endpoint_auth_method: metadata.tokenEndpointAuthMethod }, createdAt: now,
  }));
  return {
    client_id: application.clientId,
    client_id_issued_at: Math.floor(application.createdAt / 1000),
    // RFC 7591 §3.2.1: 0 means the secret does not expire.
    ...(metadata.confidential ? { client_secret: clientSecret, client_secret_expires_at: 0 as const } : {}),
    client_name: application.name,
    redirect_uris: application.redirectUris,
    token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
    // What Folio does, which RFC 7591 §3.2.1 lets it say in place of what was asked: every code exchange gets a refresh token.
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: formatScope(application.scopes),
  };
}
