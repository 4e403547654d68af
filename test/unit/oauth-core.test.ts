// The protocol core (src/oauth) with in-memory fakes: no Fastify, no database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authenticateClient, type PresentedClient } from '../../src/oauth/client-authentication.ts';
import { OAuthError, toOAuthError } from '../../src/oauth/errors.ts';
import { createClientCredentialsGrant } from '../../src/oauth/grants/client-credentials.ts';
import type { GrantHandler, TokenRequest } from '../../src/oauth/grants/grant-handler.ts';
import { createRefreshTokenGrant } from '../../src/oauth/grants/refresh-token.ts';
import { lifetimes } from '../../src/oauth/lifetimes.ts';
import { authorizationServerMetadata } from '../../src/oauth/metadata.ts';
import { verifyAccessToken } from '../../src/oauth/bearer.ts';
import { readCodeChallenge, verifyCodeVerifier } from '../../src/oauth/pkce.ts';
import { formatScope, narrowScope, resolveRequestedScope, sameScope } from '../../src/oauth/scopes.ts';
import { type ClientRequestInput, handleTokenRequest, presentedClient } from '../../src/oauth/token-endpoint.ts';
import { protectedResources } from '../../src/oauth/resources.ts';
import { mintTokens, tokenResponse } from '../../src/oauth/tokens.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import { generateCredential, hashCredential, isWellFormedCredential } from '../../src/platform/secrets.ts';
import type { AccessToken, Application, Grant, IssuedTokens } from '../../src/domain/records.ts';

function rejectsWith(code: string) {
  return (error: unknown) => error instanceof OAuthError && error.code === code;
}

function throwsCode(fn: () => unknown, code: string): void {
  assert.throws(fn, rejectsWith(code));
}

let nextId = 1;
function application(overrides: Partial<Application> = {}): { application: Application; secret: string } {
  const secret = generateCredential('clientSecret', cryptoRandom);
  const id = nextId++;
  return {
    secret,
    application: {
      id, ownerId: 1, registration: 'person', name: 'App', clientId: `client-${id}`, secretHash: hashCredential(secret),
      redirectUris: ['https://client.example/cb'], confidential: true, pkceRequired: false, scopes: ['read'],
      createdAt: 0, updatedAt: 0, ...overrides,
    },
  };
}

function fakeApplications(...applications: Application[]) {
  const lookups: string[] = [];
  return {
    lookups,
    async findApplicationByClientId(clientId: string) {
      lookups.push(clientId);
      return applications.find((candidate) => candidate.clientId === clientId);
    },
  };
}

describe('RFC 6749 §2.3 presentedClient: which authentication method a request uses', () => {
  const basic = { clientId: 'abc', clientSecret: 's3cret' };

  it('reads HTTP Basic as client_secret_basic', () => {
    assert.deepEqual(presentedClient({ params: {}, basic }), { method: 'client_secret_basic', clientId: 'abc', clientSecret: 's3cret' });
  });

  it('reads Basic with an empty secret as a public client', () => {
    assert.deepEqual(presentedClient({ params: {}, basic: { clientId: 'abc', clientSecret: '' } }), { method: 'none', clientId: 'abc' });
  });

  it('refuses Basic together with a client_secret in the body', () => {
    throwsCode(() => presentedClient({ params: { client_secret: 'x' }, basic }), 'invalid_request');
  });

  it('treats an empty body client_secret beside Basic as absent', () => {
    assert.equal(presentedClient({ params: { client_secret: '' }, basic })?.method, 'client_secret_basic');
  });

  it('allows a body client_id naming the Basic client', () => {
    assert.equal(presentedClient({ params: { client_id: 'abc' }, basic })?.method, 'client_secret_basic');
  });

  it('refuses a body client_id that differs from the Basic one', () => {
    throwsCode(() => presentedClient({ params: { client_id: 'xyz' }, basic }), 'invalid_request');
  });

  it('reads client_id and client_secret in the body as client_secret_post', () => {
    assert.deepEqual(presentedClient({ params: { client_id: 'abc', client_secret: 's' } }), { method: 'client_secret_post', clientId: 'abc', clientSecret: 's' });
  });

  it('reads a body client_id alone, or with an empty secret, as a public client', () => {
    assert.deepEqual(presentedClient({ params: { client_id: 'abc' } }), { method: 'none', clientId: 'abc' });
    assert.deepEqual(presentedClient({ params: { client_id: 'abc', client_secret: '' } }), { method: 'none', clientId: 'abc' });
  });

  it('refuses a client_secret without client_id', () => {
    throwsCode(() => presentedClient({ params: { client_secret: 's' } }), 'invalid_request');
  });

  it('returns undefined when no client is named', () => {
    assert.equal(presentedClient({ params: {} }), undefined);
  });
});

describe('RFC 6749 §2.3.1 authenticateClient', () => {
  const confidential = application();
  const publicApp = application({ confidential: false, pkceRequired: true });
  const applications = fakeApplications(confidential.application, publicApp.application);
  const present = (clientId: string, clientSecret?: string): PresentedClient =>
    clientSecret === undefined ? { method: 'none', clientId } : { method: 'client_secret_post', clientId, clientSecret };

  it('authenticates a confidential application by its secret', async () => {
    const client = await authenticateClient(present(confidential.application.clientId, confidential.secret), applications);
    assert.equal(client.application.id, confidential.application.id);
    assert.equal(client.confidential, true);
  });

  it('refuses a confidential application without its secret', async () => {
    await assert.rejects(authenticateClient(present(confidential.application.clientId), applications), rejectsWith('invalid_client'));
  });

  it('refuses a wrong or malformed secret', async () => {
    const wrong = generateCredential('clientSecret', cryptoRandom);
    await assert.rejects(authenticateClient(present(confidential.application.clientId, wrong), applications), rejectsWith('invalid_client'));
    await assert.rejects(authenticateClient(present(confidential.application.clientId, 'nope'), applications), rejectsWith('invalid_client'));
  });

  it('refuses the secret with its checksum or a character of its body changed: the stored hash decides', async () => {
    const { secret } = confidential;
    const flip = (character: string) => (character === 'A' ? 'B' : 'A');
    for (const index of [secret.length - 1, secret.length - 7, 'folio_cs_'.length]) {
      const altered = secret.slice(0, index) + flip(secret[index]!) + secret.slice(index + 1);
      await assert.rejects(authenticateClient(present(confidential.application.clientId, altered), applications), rejectsWith('invalid_client'), `index ${index}`);
    }
  });

  it('accepts a public application by client_id alone, as non-confidential', async () => {
    const client = await authenticateClient(present(publicApp.application.clientId), applications);
    assert.equal(client.confidential, false);
  });

  it('keeps a public application non-confidential even with its right secret', async () => {
    const client = await authenticateClient(present(publicApp.application.clientId, publicApp.secret), applications);
    assert.equal(client.confidential, false);
  });

  it('refuses a public application that sends a wrong secret', async () => {
    await assert.rejects(authenticateClient(present(publicApp.application.clientId, confidential.secret), applications), rejectsWith('invalid_client'));
  });

  it('refuses no client, an empty client_id and an unknown client_id', async () => {
    await assert.rejects(authenticateClient(undefined, applications), rejectsWith('invalid_client'));
    await assert.rejects(authenticateClient(present(''), applications), rejectsWith('invalid_client'));
    await assert.rejects(authenticateClient(present('who'), applications), rejectsWith('invalid_client'));
  });

  it('refuses an over-long client_id without a database look-up', async () => {
    const store = fakeApplications();
    await assert.rejects(authenticateClient(present('x'.repeat(257)), store), rejectsWith('invalid_client'));
    assert.deepEqual(store.lookups, []);
  });
});

describe('RFC 6749 §3.2 handleTokenRequest: steps in order of error precedence', () => {
  const confidential = application();
  const publicApp = application({ confidential: false });
  const applications = fakeApplications(confidential.application, publicApp.application);
  const handled: TokenRequest[] = [];
  const handler = (grantType: string, requiredParams: string[], confidentialOnly: boolean): GrantHandler => ({
    grantType, requiredParams, confidentialOnly,
    async handle(request) {
      handled.push(request);
      return { access_token: 'a', token_type: 'bearer', expires_in: 1800, created_at: 0 };
    },
  });
  const registry = new Map([
    ['alpha', handler('alpha', ['one', 'two'], false)],
    ['secret_only', handler('secret_only', [], true)],
  ]);
  const deps = { registry, applications, resources: protectedResources('https://folio.example') };
  const input = (params: Record<string, string>, repeatedParams: string[] = []): ClientRequestInput => ({ params, repeatedParams, ip: '192.0.2.1' });
  const asConfidential = { client_id: confidential.application.clientId, client_secret: confidential.secret };

  it('refuses repeated parameters before authenticating the client', async () => {
    await assert.rejects(handleTokenRequest(input({ grant_type: 'alpha' }, ['code']), deps), rejectsWith('invalid_request'));
  });

  it('authenticates the client before looking at grant_type', async () => {
    await assert.rejects(handleTokenRequest(input({ grant_type: 'nonsense' }), deps), rejectsWith('invalid_client'));
  });

  it('answers a missing grant_type with invalid_request', async () => {
    await assert.rejects(handleTokenRequest(input({ ...asConfidential }), deps), rejectsWith('invalid_request'));
    await assert.rejects(handleTokenRequest(input({ ...asConfidential, grant_type: '' }), deps), rejectsWith('invalid_request'));
  });

  it('answers an unknown grant_type with unsupported_grant_type naming the registry', async () => {
    await assert.rejects(handleTokenRequest(input({ ...asConfidential, grant_type: 'password' }), deps), (error: unknown) =>
      error instanceof OAuthError && error.code === 'unsupported_grant_type' && error.description.includes('alpha, secret_only'));
  });

  it('refuses a confidential-only grant to a public client with unauthorized_client', async () => {
    await assert.rejects(handleTokenRequest(input({ client_id: publicApp.application.clientId, grant_type: 'secret_only' }), deps), rejectsWith('unauthorized_client'));
  });

  it('names the first missing required parameter', async () => {
    await assert.rejects(handleTokenRequest(input({ ...asConfidential, grant_type: 'alpha', two: '2' }), deps), (error: unknown) =>
      error instanceof OAuthError && error.code === 'invalid_request' && error.description === 'one is required');
    await assert.rejects(handleTokenRequest(input({ ...asConfidential, grant_type: 'alpha', one: '1', two: '' }), deps), (error: unknown) =>
      error instanceof OAuthError && error.description === 'two is required');
  });

  it('dispatches to the grant with the authenticated client, the parameters and the address', async () => {
    handled.length = 0;
    const response = await handleTokenRequest(input({ ...asConfidential, grant_type: 'alpha', one: '1', two: '2' }), deps);
    assert.equal(response.access_token, 'a');
    assert.equal(handled.length, 1);
    assert.equal(handled[0]!.client.application.id, confidential.application.id);
    assert.equal(handled[0]!.params.one, '1');
    assert.equal(handled[0]!.ip, '192.0.2.1');
  });
});

describe('RFC 6749 §3.3 scopes', () => {
  it('grants the default scope when none is asked for', () => {
    assert.deepEqual(resolveRequestedScope(undefined, ['read']), ['read']);
    assert.deepEqual(resolveRequestedScope('  ', ['read']), ['read']);
  });

  it('refuses a scope the application does not hold, or a malformed one, with invalid_scope', () => {
    throwsCode(() => resolveRequestedScope('write', ['read']), 'invalid_scope');
    throwsCode(() => resolveRequestedScope('read "x"', ['read', '"x"']), 'invalid_scope');
  });

  it('de-duplicates and sorts the asked scope', () => {
    assert.deepEqual(resolveRequestedScope('write read  read', ['read', 'write']), ['read', 'write']);
  });

  it('lets a refresh narrow the scope but never widen it (RFC 6749 §6)', () => {
    assert.deepEqual(narrowScope(undefined, ['read', 'write']), ['read', 'write']);
    assert.deepEqual(narrowScope('read', ['read', 'write']), ['read']);
    throwsCode(() => narrowScope('admin', ['read']), 'invalid_scope');
  });

  it('compares scopes as sets and formats them space-separated', () => {
    assert.equal(sameScope(['read', 'write'], ['write', 'read']), true);
    assert.equal(sameScope(['read'], ['read', 'write']), false);
    assert.equal(formatScope(['read', 'write']), 'read write');
  });
});

describe('RFC 7636 PKCE', () => {
  // RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  describe('§4.3 readCodeChallenge', () => {
    it('accepts an S256 challenge', () => {
      assert.equal(readCodeChallenge(challenge, 'S256', true), challenge);
    });

    it('returns null when no challenge is sent and none is required', () => {
      assert.equal(readCodeChallenge(undefined, undefined, false), null);
      assert.equal(readCodeChallenge('', '', false), null);
    });

    it('requires a challenge when the application requires PKCE', () => {
      throwsCode(() => readCodeChallenge(undefined, undefined, true), 'invalid_request');
    });

    it('refuses plain, an absent method, and a method without a challenge', () => {
      throwsCode(() => readCodeChallenge(challenge, 'plain', false), 'invalid_request');
      throwsCode(() => readCodeChallenge(challenge, undefined, false), 'invalid_request');
      throwsCode(() => readCodeChallenge(undefined, 'S256', false), 'invalid_request');
    });

    it('refuses a challenge that is not a 43-character base64url digest', () => {
      throwsCode(() => readCodeChallenge(challenge.slice(1), 'S256', false), 'invalid_request');
      throwsCode(() => readCodeChallenge(`${challenge.slice(1)}=`, 'S256', false), 'invalid_request');
    });
  });

  describe('§4.6 verifyCodeVerifier', () => {
    it('accepts the verifier of the RFC 7636 Appendix B example', () => {
      assert.doesNotThrow(() => verifyCodeVerifier(verifier, challenge));
    });

    it('accepts no verifier for a code without a challenge', () => {
      assert.doesNotThrow(() => verifyCodeVerifier(undefined, null));
    });

    it('refuses a wrong, missing, malformed or unexpected verifier with invalid_grant', () => {
      throwsCode(() => verifyCodeVerifier(`${verifier.slice(0, -1)}l`, challenge), 'invalid_grant');
      throwsCode(() => verifyCodeVerifier(undefined, challenge), 'invalid_grant');
      throwsCode(() => verifyCodeVerifier('short', challenge), 'invalid_grant');
      throwsCode(() => verifyCodeVerifier(`${verifier}!`, challenge), 'invalid_grant');
      throwsCode(() => verifyCodeVerifier(verifier, null), 'invalid_grant');
    });
  });
});

describe('tokens: minting and the token response (spec §2, DESIGN §2)', () => {
  const clock = new FixedClock(Date.UTC(2026, 0, 15, 9, 0, 0, 750));
  const subject = { grantId: 7, applicationId: 3, userId: 5, scope: ['read'], originCodeHash: null, resource: null };

  it('mints well-formed tokens and records only their hashes, with the fixed lifetimes', () => {
    const minted = mintTokens({ clock, random: cryptoRandom }, subject, true);
    assert.ok(isWellFormedCredential('accessToken', minted.accessToken));
    assert.ok(isWellFormedCredential('refreshToken', minted.refreshToken!));
    assert.equal(minted.records.access.tokenHash, hashCredential(minted.accessToken));
    assert.equal(minted.records.refresh!.tokenHash, hashCredential(minted.refreshToken!));
    assert.ok(!JSON.stringify(minted.records).includes(minted.accessToken));
    assert.ok(!JSON.stringify(minted.records).includes(minted.refreshToken!));
    assert.equal(minted.records.access.expiresAt, clock.now() + 1800_000);
    assert.equal(minted.records.refresh!.expiresAt, clock.now() + 90 * 24 * 3600_000);
    assert.equal(minted.records.refresh!.rotatedAt, null);
  });

  it('mints no refresh token when asked not to', () => {
    const minted = mintTokens({ clock, random: cryptoRandom }, subject, false);
    assert.equal(minted.refreshToken, undefined);
    assert.equal(minted.records.refresh, undefined);
  });

  it('answers exactly the spec fields, created_at in whole seconds, scope only when it differs', () => {
    const minted = mintTokens({ clock, random: cryptoRandom }, subject, true);
    const body = tokenResponse(minted, ['read']);
    assert.deepEqual(body, {
      access_token: minted.accessToken, token_type: 'bearer', expires_in: 1800,
      refresh_token: minted.refreshToken, created_at: Date.UTC(2026, 0, 15, 9, 0, 0) / 1000,
    });
    assert.equal(tokenResponse(minted, ['read', 'write']).scope, 'read');
  });

  it('keeps the DESIGN §2 lifetimes', () => {
    assert.deepEqual({ ...lifetimes }, {
      accessToken: 1800_000, authorizationCode: 600_000, refreshTokenIdle: 90 * 24 * 3600_000, refreshRaceWindow: 10_000,
    });
  });
});

describe('RFC 6749 §6 refresh with a narrower scope', () => {
  it('narrows the new access token only: the new refresh token keeps the scope of the one it replaces', async () => {
    const clock = new FixedClock(Date.UTC(2026, 0, 15));
    const presented = generateCredential('refreshToken', cryptoRandom);
    const stored = {
      tokenHash: hashCredential(presented), grantId: 1, applicationId: 7, userId: 3, scope: ['read', 'write'],
      createdAt: clock.now(), expiresAt: clock.now() + lifetimes.refreshTokenIdle, revokedAt: null, rotatedAt: null, originCodeHash: 'c'.repeat(64), resource: null,
    };
    let rotatedTo: IssuedTokens | undefined;
    const grant = createRefreshTokenGrant({
      clock, random: cryptoRandom, resources: protectedResources('https://folio.example'),
      grants: { async revokeAuthorization() {} },
      audit: { async recordEvent() { throw new Error('nothing to record'); } },
      tokens: {
        findRefreshToken: async (hash) => (hash === stored.tokenHash ? stored : undefined),
        rotateRefreshToken: async (_hash, next) => { rotatedTo = next; return true; },
      },
    });
    const client = { application: application({ id: 7 } as Partial<Application>).application, confidential: true };
    const response = await grant.handle({ client, params: { grant_type: 'refresh_token', refresh_token: presented, scope: 'read' }, ip: null, resource: null });
    assert.equal(response.scope, undefined);
    assert.deepEqual(rotatedTo!.access.scope, ['read']);
    assert.deepEqual(rotatedTo!.refresh!.scope, ['read', 'write']);
  });
});

describe('RFC 6749 §4.4 client credentials: the grant remembered between issues', () => {
  it('looks the grant up again when it lacks a requested scope, or when a save finds it no longer live', async () => {
    const clock = new FixedClock(Date.UTC(2026, 0, 15));
    // A grant store whose live grant widens to each scope asked for, as the real one does.
    let live: Grant = { id: 1, userId: 1, applicationId: 0, scope: [], createdAt: clock.now(), lastUsedAt: null, revokedAt: null };
    let lookUps = 0;
    let liveOnSave = true;
    const savedOn: number[] = [];
    const grant = createClientCredentialsGrant({
      clock, random: cryptoRandom,
      grants: {
        async findOrCreateActiveGrant(userId, applicationId, scope) {
          lookUps++;
          live = { ...live, userId, applicationId, scope: [...new Set([...live.scope, ...scope])].sort() };
          return live;
        },
      },
      tokens: {
        async saveTokens(tokens) {
          if (!liveOnSave) {
            liveOnSave = true;
            live = { ...live, id: live.id + 1, scope: [] }; // revoked meanwhile: the next look-up makes a new grant
            return false;
          }
          savedOn.push(tokens.access.grantId);
          return true;
        },
      },
    });
    const client = { application: application({ scopes: ['read', 'write'] }).application, confidential: true };
    const issue = (scope: string) => grant.handle({ client, params: { grant_type: 'client_credentials', scope }, ip: null, resource: null });

    await issue('read');
    await issue('read');
    assert.equal(lookUps, 1);
    await issue('read write'); // more than the remembered grant holds
    assert.equal(lookUps, 2);
    await issue('write');
    assert.equal(lookUps, 2);
    liveOnSave = false;
    await issue('read');
    assert.equal(lookUps, 3);
    assert.deepEqual(savedOn, [1, 1, 1, 1, 2]);
  });
});

describe('OAuthError (RFC 6749 §5.2)', () => {
  it('keeps error_description to the characters RFC 6749 §5.2 allows, whatever it quotes', () => {
    const error = new OAuthError('invalid_scope', 'The scope "wr\\ité" is not available');
    assert.equal(error.description, "The scope 'wr/it?' is not available");
    assert.equal(error.toJSON().error_description, error.description);
  });

  it('maps invalid_client to 401 and the other token errors to 400', () => {
    assert.equal(new OAuthError('invalid_client', 'x').status, 401);
    for (const code of ['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'] as const) {
      assert.equal(new OAuthError(code, 'x').status, 400, code);
    }
  });

  it('serializes as {error, error_description} only', () => {
    const error = new OAuthError('invalid_grant', 'bad code', { cause: new Error('secret detail') });
    assert.deepEqual(JSON.parse(JSON.stringify(error)), { error: 'invalid_grant', error_description: 'bad code' });
  });

  it('turns anything unexpected into server_error without leaking it', () => {
    const error = toOAuthError(new Error('SQLITE_BUSY at /srv/folio.db'));
    assert.equal(error.code, 'server_error');
    assert.equal(error.status, 500);
    assert.ok(!error.description.includes('SQLITE'));
  });
});

describe('RFC 8414 metadata from the registry', () => {
  it('lists whatever grants the registry holds, in its order', () => {
    const registry = new Map([['b_grant', {} as GrantHandler], ['a_grant', {} as GrantHandler]]);
    const document = authorizationServerMetadata('https://issuer.example', registry);
    assert.deepEqual(document.grant_types_supported, ['b_grant', 'a_grant']);
    assert.equal(document.token_endpoint, 'https://issuer.example/oauth2/token');
  });
});

describe('RFC 6750 verifyAccessToken', () => {
  const clock = new FixedClock(1_700_000_000_000);
  const raw = generateCredential('accessToken', cryptoRandom, clock.now());
  const live = {
    tokenHash: hashCredential(raw), grantId: 1, applicationId: 1, userId: 1, scope: ['read'],
    createdAt: clock.now(), expiresAt: clock.now() + 60_000, revokedAt: null, originCodeHash: null, resource: null,
  } satisfies AccessToken;

  /** A token store that holds `held` in memory and `stored` in its database, and counts what is asked of it. */
  function store(held: AccessToken | undefined, stored: AccessToken | undefined) {
    const asked = { recalls: 0, reads: 0 };
    return {
      asked,
      deps: {
        clock,
        tokens: {
          recallAccessToken: () => { asked.recalls++; return held; },
          findAccessToken: async () => { asked.reads++; return stored; },
        },
      },
    };
  }

  it('takes a token held in memory without reading the database', async () => {
    const { asked, deps } = store(live, undefined);
    assert.equal(await verifyAccessToken(raw, deps), live);
    assert.deepEqual(asked, { recalls: 1, reads: 0 });
  });

  it('reads a token not held in memory, once its checksum holds', async () => {
    const { asked, deps } = store(undefined, live);
    assert.equal(await verifyAccessToken(raw, deps), live);
    assert.deepEqual(asked, { recalls: 1, reads: 1 });
  });

  it('keeps garbage from the database: a wrong checksum, or the wrong shape before any hashing', async () => {
    const wrongChecksum = raw.slice(0, -1) + (raw.endsWith('A') ? 'B' : 'A');
    const checked = store(undefined, live);
    await assert.rejects(verifyAccessToken(wrongChecksum, checked.deps), /malformed/);
    assert.deepEqual(checked.asked, { recalls: 1, reads: 0 });
    const shapeless = store(live, live);
    for (const garbage of ['', 'folio_at_', `${raw}x`, raw.replace('folio_at_', 'folio_rt_'), `${raw.slice(0, 20)}!${raw.slice(21)}`]) {
      await assert.rejects(verifyAccessToken(garbage, shapeless.deps), /malformed/);
    }
    assert.deepEqual(shapeless.asked, { recalls: 0, reads: 0 });
  });

  it('refuses a token held in memory that is revoked or expired, as one read', async () => {
    await assert.rejects(verifyAccessToken(raw, store({ ...live, revokedAt: clock.now() }, undefined).deps), /revoked/);
    await assert.rejects(verifyAccessToken(raw, store({ ...live, expiresAt: clock.now() }, undefined).deps), /expired/);
    await assert.rejects(verifyAccessToken(raw, store(undefined, undefined).deps), /unknown/);
  });
});
