// The one place a client_id is resolved to an application. A client_id that is a
// URL names a client ID metadata document (draft-ietf-oauth-client-id-metadata-document):
// it is fetched (through a cache that honours its HTTP caching headers), validated,
// and its application row made or brought up to it; every other client_id is a row.
import type { DocumentCache } from '../platform/document-cache.ts';
import type { RandomSource } from '../platform/random.ts';
import type { RateLimiter } from '../platform/rate-limit/limiter.ts';
import { DocumentFetchError, type FetchedDocument } from '../platform/safe-fetch.ts';
import { generateCredential, hashCredential } from '../platform/secrets.ts';
import type { Application } from '../domain/records.ts';
import type { ApplicationStore } from '../storage/stores.ts';
import type { Clock } from '../platform/clock.ts';
import type { ClientMetadata } from './client-metadata.ts';
import { type ClientIdUrlOptions, isClientIdMetadataUrl, validateClientIdUrl, validateMetadataDocument } from './client-id-metadata-document.ts';
import { OAuthError } from './errors.ts';

export interface MetadataDocumentClientsDeps {
  applications: ApplicationStore;
  /** The SSRF-guarded fetch (platform/safe-fetch.ts) with the configuration's allowances. */
  fetchDocument: (url: string) => Promise<FetchedDocument>;
  cache: DocumentCache<ClientMetadata>;
  urlOptions: ClientIdUrlOptions;
  clock: Clock;
  random: RandomSource;
  /** Counts this process's fetches, per host and in all (FETCH_BUDGET). */
  fetchLimiter: RateLimiter;
}

/**
 * Any unauthenticated request may name any URL as its client_id, so fetches (cache
 * misses) are limited per host and in all: Folio must not become a way to send
 * requests at someone's server, nor fill its applications table at a stranger's pace.
 */
export const FETCH_BUDGET = { perHostPerMinute: 30, inAllPerMinute: 300 } as const;
const MINUTE_MS = 60_000;

/**
 * The store with findApplicationByClientId resolving metadata-document clients too.
 * A document that cannot be had or is not valid is invalid_client, with the reason:
 * the token endpoint answers with it, and the authorization endpoint shows it on a page.
 */
export function withMetadataDocumentClients(deps: MetadataDocumentClientsDeps): ApplicationStore {
  const { applications } = deps;

  async function documentClient(clientId: string): Promise<Application> {
    validateClientIdUrl(clientId, deps.urlOptions);
    let fetchedNow = false;
    const metadata = await deps.cache.get(clientId, async () => {
      fetchedNow = true;
      await spendFetchBudget(new URL(clientId).host);
      const fetched = await deps.fetchDocument(clientId);
      return { value: validateMetadataDocument(clientId, fetched.json, deps.urlOptions), caching: fetched.caching };
    }).catch((error: unknown) => {
      throw unusableDocument(error);
    });
    // The row follows the document each time it is fetched anew: its name and redirect URIs are the current ones.
    const known = fetchedNow ? undefined : await applications.findApplicationByClientId(clientId);
    return known ?? upsert(clientId, metadata);
  }

  async function spendFetchBudget(host: string): Promise<void> {
    const now = deps.clock.now();
    const perHost = await deps.fetchLimiter.hit(`host:${host}`, FETCH_BUDGET.perHostPerMinute, MINUTE_MS, now);
    if (!perHost.allowed) throw new DocumentFetchError(`Folio has fetched too many client documents from ${host} in the last minute; try again shortly`);
    const inAll = await deps.fetchLimiter.hit('all', FETCH_BUDGET.inAllPerMinute, MINUTE_MS, now);
    if (!inAll.allowed) throw new DocumentFetchError('Folio has fetched too many client documents in the last minute; try again shortly');
  }

  function upsert(clientId: string, metadata: ClientMetadata): Promise<Application> {
    const now = deps.clock.now();
    return applications.upsertMetadataDocumentClient({
      clientId,
      name: metadata.clientName,
      redirectUris: metadata.redirectUris,
      confidential: false,
      // The draft's "Client Metadata Document": such a client is public and must use PKCE.
      pkceRequired: true,
      scopes: metadata.scope,
      // A secret nobody is given: a document cannot carry one, so any secret sent is wrong.
      secretHash: hashCredential(generateCredential('clientSecret', deps.random)),
    }, now, (application) => ({
      type: 'application.registered', userId: null, applicationId: application.id, ip: null,
      detail: { name: application.name, registration: 'metadata_document', client_id: clientId }, createdAt: now,
    }));
  }

  return Object.assign(Object.create(applications) as ApplicationStore, {
    findApplicationByClientId(clientId: string): Promise<Application | undefined> {
      if (isClientIdMetadataUrl(clientId, deps.urlOptions)) return documentClient(clientId);
      return applications.findApplicationByClientId(clientId);
    },
  });
}

function unusableDocument(error: unknown): unknown {
  if (error instanceof DocumentFetchError) {
    return new OAuthError('invalid_client', `The client's metadata document could not be fetched: ${error.reason}`, { cause: error });
  }
  if (error instanceof OAuthError) {
    return new OAuthError('invalid_client', `The client's metadata document is not valid: ${error.description}`, { cause: error });
  }
  return error;
}
