// Client authentication at the token, revocation and introspection endpoints
// (RFC 6749 §2.3). The HTTP layer extracts what was presented; this decides.
import { hasCredentialShape, hashCredential, hashesEqual } from '../platform/secrets.ts';
import type { Application } from '../domain/records.ts';
import type { ApplicationStore } from '../storage/stores.ts';
import { OAuthError } from './errors.ts';

export const clientAuthenticationMethods = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type ClientAuthenticationMethod = (typeof clientAuthenticationMethods)[number];

export interface PresentedClient {
  method: ClientAuthenticationMethod;
  clientId: string;
  clientSecret?: string;
}

export interface AuthenticatedClient {
  application: Application;
  /**
   * True for a confidential application that proved it holds the secret. A public
   * application's secret proves nothing (it ships inside the app), so a public
   * application stays non-confidential even when it sends the right one.
   */
  confidential: boolean;
}

/** The longest client_id Folio looks up: its own are far shorter, and a metadata document's URL may be no longer. */
export const CLIENT_ID_MAX = 256;

export async function authenticateClient(
  presented: PresentedClient | undefined,
  applications: Pick<ApplicationStore, 'findApplicationByClientId'>,
): Promise<AuthenticatedClient> {
  if (presented === undefined || presented.clientId === '') {
    throw new OAuthError('invalid_client', 'Client authentication is required: send client_id (and client_secret for confidential applications)');
  }
  const application = presented.clientId.length <= CLIENT_ID_MAX
    ? await applications.findApplicationByClientId(presented.clientId)
    : undefined;
  if (application === undefined) throw new OAuthError('invalid_client', 'Unknown client');

  if (presented.clientSecret !== undefined) {
    const secret = presented.clientSecret;
    // DESIGN §2: a secret that is sent must be right, even from a public application.
    // Its shape refuses garbage before hashing; its checksum is not checked, a
    // SHA-256 that decides nothing here: only the secret issued, whose checksum
    // was right, has the stored hash.
    const matches = hasCredentialShape('clientSecret', secret) && hashesEqual(hashCredential(secret), application.secretHash);
    if (!matches) throw new OAuthError('invalid_client', 'Client authentication failed');
    return { application, confidential: application.confidential };
  }
  if (application.confidential) {
    throw new OAuthError('invalid_client', 'This application is confidential and must authenticate with its client_secret');
  }
  return { application, confidential: false };
}
