// A credential presented again after it was used means someone else holds a copy:
// every token of its grant is revoked and the event recorded (RFC 6749 §4.1.2 for
// codes, RFC 9700 §4.14.2 for refresh tokens).
import type { AuditEventType } from '../../storage/records.ts';
import type { AuditStore, GrantStore } from '../../storage/stores.ts';
import { OAuthError } from '../errors.ts';

export interface CompromisedGrantDeps {
  grants: Pick<GrantStore, 'revokeGrant'>;
  audit: AuditStore;
}

export interface ReusedCredential {
  grantId: number;
  userId: number;
  applicationId: number;
}

export async function revokeCompromisedGrant(
  deps: CompromisedGrantDeps,
  reused: ReusedCredential,
  event: { type: AuditEventType; now: number; ip: string | null; description: string },
): Promise<never> {
  await deps.grants.revokeGrant(reused.grantId, event.now);
  await deps.audit.recordEvent({
    type: event.type, userId: reused.userId, applicationId: reused.applicationId,
    ip: event.ip, detail: { grant_id: reused.grantId }, createdAt: event.now,
  });
  throw new OAuthError('invalid_grant', event.description);
}
