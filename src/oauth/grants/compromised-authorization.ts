// A credential presented again after it was used means someone else holds a copy:
// every token of the authorization it belongs to is revoked and the event recorded
// (RFC 6749 §4.1.2 for codes, RFC 9700 §4.14.2 for refresh tokens). Only that
// authorization: the user's other devices, and the client_credentials tokens that
// share the user's grant, keep theirs.
import type { AuditEventType } from '../../domain/records.ts';
import type { GrantStore } from '../../storage/stores.ts';
import { OAuthError } from '../errors.ts';

export interface CompromisedAuthorizationDeps {
  grants: Pick<GrantStore, 'revokeAuthorization'>;
}

export interface ReusedCredential {
  grantId: number;
  userId: number;
  applicationId: number;
  /** The authorization code the credential descends from (a code's own hash for a code). */
  originCodeHash: string | null;
}

export async function revokeCompromisedAuthorization(
  deps: CompromisedAuthorizationDeps,
  reused: ReusedCredential,
  event: { type: AuditEventType; now: number; ip: string | null; description: string },
): Promise<never> {
  await deps.grants.revokeAuthorization(reused.grantId, reused.originCodeHash, event.now, {
    type: event.type, userId: reused.userId, applicationId: reused.applicationId,
    ip: event.ip, detail: { grant_id: reused.grantId }, createdAt: event.now,
  });
  throw new OAuthError('invalid_grant', event.description);
}
