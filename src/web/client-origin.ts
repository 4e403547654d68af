// Who stands behind a client, as a person deciding whether to trust it can check:
// the developer who registered it on Folio, or for a client no person registered,
// where it came from (draft-ietf-oauth-client-id-metadata-document, "OAuth Phishing Attacks").
import type { ClientRegistration } from '../domain/records.ts';

export function clientOrigin(registration: ClientRegistration, clientId: string, ownerName: string | null): string {
  if (registration === 'metadata_document') return `Described by ${clientIdHost(clientId)}`;
  if (registration === 'dynamic') return 'Registered itself';
  return `Made by ${ownerName ?? 'an unknown developer'}`;
}

/** The host that serves a metadata-document client's client_id. */
export function clientIdHost(clientId: string): string {
  return new URL(clientId).host;
}
