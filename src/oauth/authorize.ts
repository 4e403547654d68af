// RFC 6749 §4.1.1 authorization request, validated as ordered steps. Client
// and redirect URI come first: until both are verified an error is shown on a
// page and never sent to the (unverified) redirect URI (§4.1.2.1).
import type { Application } from '../domain/records.ts';
import type { ApplicationStore } from '../storage/stores.ts';
import { CLIENT_ID_MAX } from './client-authentication.ts';
import { OAuthError } from './errors.ts';
import { readCodeChallenge } from './pkce.ts';
import { OOB_REDIRECT_URI, isRegisteredRedirectUri } from './redirect-uris.ts';
import { type ProtectedResources, requestedResource } from './resources.ts';
import { resolveRequestedScope } from './scopes.ts';

export interface AuthorizationRequest {
  application: Application;
  redirectUri: string;
  state: string | undefined;
  scope: string[];
  codeChallenge: string | null;
  /** The RFC 8707 resource asked for, as Folio spells it; null when none was. */
  resource: string | null;
  prompt: { none: boolean; login: boolean; consent: boolean };
  /** The request's own parameters, to carry through the login and consent pages. */
  params: Readonly<Record<string, string>>;
}

export interface AuthorizationRequestInput {
  params: Readonly<Record<string, string>>;
  repeatedParams: readonly string[];
}

const MAX_STATE_LENGTH = 2048;
const PROMPT_VALUES = new Set(['none', 'login', 'consent']);

/** Not redirectable: the client or redirect URI is not verified yet. */
function pageError(description: string): OAuthError {
  return new OAuthError('invalid_request', description);
}

async function verifiedClient(input: AuthorizationRequestInput, applications: Pick<ApplicationStore, 'findApplicationByClientId'>): Promise<Application> {
  const clientId = input.params.client_id;
  if (input.repeatedParams.includes('client_id')) throw pageError('client_id was given more than once');
  if (clientId === undefined || clientId === '') throw pageError('client_id is required');
  const application = clientId.length <= CLIENT_ID_MAX ? await findClient(clientId, applications) : undefined;
  if (application === undefined) throw pageError('No application is registered with this client_id');
  return application;
}

/** A metadata-document client whose document cannot be used is shown why on the page, never redirected. */
async function findClient(clientId: string, applications: Pick<ApplicationStore, 'findApplicationByClientId'>): Promise<Application | undefined> {
  try {
    return await applications.findApplicationByClientId(clientId);
  } catch (error) {
    if (error instanceof OAuthError && error.code === 'invalid_client') throw pageError(error.description);
    throw error;
  }
}

function verifiedRedirectUri(input: AuthorizationRequestInput, application: Application): string {
  const redirectUri = input.params.redirect_uri;
  if (input.repeatedParams.includes('redirect_uri')) throw pageError('redirect_uri was given more than once');
  if (redirectUri === undefined || redirectUri === '') throw pageError('redirect_uri is required');
  if (!isRegisteredRedirectUri(redirectUri, application.redirectUris)) {
    throw pageError('redirect_uri is not registered for this application');
  }
  return redirectUri;
}

function parsePrompt(params: Readonly<Record<string, string>>): AuthorizationRequest['prompt'] {
  const values = (params.prompt ?? '').split(' ').filter((value) => value !== '');
  for (const value of values) {
    if (!PROMPT_VALUES.has(value)) throw new OAuthError('invalid_request', `Unsupported prompt value: ${value.slice(0, 40)}`);
  }
  const none = values.includes('none');
  if (none && values.length > 1) throw new OAuthError('invalid_request', 'prompt=none cannot be combined with other values');
  // spec §4.1: prompt_login=true forces a new login session, like prompt=login.
  const login = values.includes('login') || params.prompt_login === 'true';
  if (none && login) throw new OAuthError('invalid_request', 'prompt=none cannot be combined with prompt_login');
  return { none, login, consent: values.includes('consent') };
}

export async function validateAuthorizationRequest(
  input: AuthorizationRequestInput,
  deps: { applications: Pick<ApplicationStore, 'findApplicationByClientId'>; resources: ProtectedResources },
): Promise<AuthorizationRequest> {
  const application = await verifiedClient(input, deps.applications);
  const redirectUri = verifiedRedirectUri(input, application);
  const { params } = input;
  // From here on errors go back to the client, except for the out-of-band URI, which has no address.
  const redirectable = redirectUri !== OOB_REDIRECT_URI;
  try {
    // RFC 6749 §3.1: parameters MUST NOT be included more than once; RFC 8707 §2
    // allows several resource parameters, which Folio refuses as invalid_target below.
    const repeated = input.repeatedParams.filter((name) => name !== 'resource');
    if (repeated.length > 0) {
      throw new OAuthError('invalid_request', `Parameter given more than once: ${repeated[0]}`);
    }
    if (params.state !== undefined && params.state.length > MAX_STATE_LENGTH) {
      throw new OAuthError('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);
    }
    const responseType = params.response_type;
    if (responseType === undefined || responseType === '') throw new OAuthError('invalid_request', 'response_type is required');
    if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported');
    const scope = resolveRequestedScope(params.scope, application.scopes);
    const resource = requestedResource(params.resource, input.repeatedParams.includes('resource'), deps.resources);
    const codeChallenge = readCodeChallenge(params.code_challenge, params.code_challenge_method, application.pkceRequired);
    const prompt = parsePrompt(params);
    return { application, redirectUri, state: params.state, scope, resource, codeChallenge, prompt, params };
  } catch (error) {
    if (!(error instanceof OAuthError) || !redirectable) throw error;
    const state = input.repeatedParams.includes('state') ? undefined : params.state;
    throw error.withRedirect({ redirectUri, state, application });
  }
}
