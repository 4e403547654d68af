// The OpenAPI 3.1 document at /api/v2/openapi.json and the docs page at /api/v2/docs:
// generated from the route schemas, so every route with a schema must appear in it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { cryptoRandom } from '../../src/platform/random.ts';
import type { OpenedStorage } from '../../src/storage/open.ts';
import { type TestApp, basic, bearer, createClient, createTestApp, createUser, obtainTokens, tokenRequest } from '../support/app.ts';
import { createTestStorage } from '../support/storage.ts';

const BASE_URL = 'https://folio.example';

describe('OpenAPI document', () => {
  let app: FastifyInstance;
  let storage: OpenedStorage;
  const routes: RouteOptions[] = [];
  let document: any;

  before(async () => {
    storage = await createTestStorage();
    const config = loadConfig({ FOLIO_LOG_LEVEL: 'silent', FOLIO_BASE_URL: BASE_URL });
    app = await buildApp({ config, storage, clock: new FixedClock(0), random: cryptoRandom, logger: createLogger(config), onRoute: (route) => routes.push(route) });
    const response = await app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    document = response.json();
  });
  after(async () => { await app.close(); await storage.close(); });

  it('is OpenAPI 3.1.0 with info and the base URL as its server', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.equal(typeof document.info.title, 'string');
    assert.equal(typeof document.info.version, 'string');
    assert.deepEqual(document.servers, [{ url: BASE_URL }]);
    for (const [path, item] of Object.entries<Record<string, { responses?: object }>>(document.paths)) {
      assert.match(path, /^\//);
      for (const [method, operation] of Object.entries(item)) {
        assert.ok(['get', 'post'].includes(method), `${method} ${path}`);
        assert.ok(operation.responses !== undefined && Object.keys(operation.responses).length > 0, `${method} ${path} has responses`);
      }
    }
  });

  it('documents every protocol and API endpoint', () => {
    const expected = {
      '/oauth2/token': 'post', '/oauth2/revoke': 'post', '/oauth2/introspect': 'post', '/oauth2/token/info': 'get', '/oauth2/register': 'post',
      '/api/v2/portfolios': 'get', '/api/v2/portfolios.json': 'get', '/api/v2/portfolios/{id}': 'get',
      '/api/v2/my_user': 'get', '/api/v2/my_user.json': 'get',
    };
    assert.deepEqual(Object.keys(document.paths).sort(), Object.keys(expected).sort());
    for (const [path, method] of Object.entries(expected)) assert.ok(document.paths[path][method], `${method} ${path}`);
  });

  it('lists every route registered with a schema (they cannot drift)', () => {
    const withSchema = routes.filter((route) => route.schema !== undefined && !(route.schema as { hide?: boolean }).hide && route.method !== 'HEAD');
    assert.ok(withSchema.length >= 9);
    for (const route of withSchema) {
      const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      for (const method of [route.method].flat()) {
        assert.ok(document.paths[path]?.[method.toLowerCase()], `${method} ${route.url} has a schema but is not in the document`);
      }
    }
  });

  it('describes the three token request body types and the RFC 6749 §5.2 error shape', () => {
    const token = document.paths['/oauth2/token'].post;
    assert.deepEqual(Object.keys(token.requestBody.content).sort(), ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    const body = token.requestBody.content['application/x-www-form-urlencoded'].schema;
    assert.equal(body.required, undefined, 'the core, not the schema, decides what is missing');
    assert.notEqual(body.additionalProperties, false, 'unknown parameters are ignored, not refused');
    assert.deepEqual(Object.keys(token.responses['200'].content['application/json'].schema.properties).sort(),
      ['access_token', 'created_at', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    const error = token.responses['4XX'].content['application/json'].schema;
    assert.deepEqual(Object.keys(error.properties).sort(), ['error', 'error_description']);
  });

  it('has bearer and oauth2 security schemes pointing at the real endpoints', () => {
    const schemes = document.components.securitySchemes;
    assert.deepEqual(schemes.bearer, { type: 'http', scheme: 'bearer', description: schemes.bearer.description });
    assert.equal(schemes.oauth2.type, 'oauth2');
    assert.equal(schemes.oauth2.flows.authorizationCode.authorizationUrl, `${BASE_URL}/oauth2/authorize`);
    assert.equal(schemes.oauth2.flows.authorizationCode.tokenUrl, `${BASE_URL}/oauth2/token`);
    assert.equal(schemes.oauth2.flows.clientCredentials.tokenUrl, `${BASE_URL}/oauth2/token`);
    assert.ok('read' in schemes.oauth2.flows.clientCredentials.scopes);
    const used = document.paths['/api/v2/portfolios'].get.security.flatMap((requirement: object) => Object.keys(requirement));
    assert.deepEqual(used.sort(), ['bearer', 'oauth2']);
  });

  it('documents client authentication at the token, revocation and introspection endpoints as Basic or the body', () => {
    for (const path of ['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect']) {
      assert.deepEqual(document.paths[path].post.security, [{ clientBasic: [] }, {}], path);
      assert.ok(!(document.paths[path].post.parameters ?? []).some((parameter: { in: string }) => parameter.in === 'header'), path);
    }
  });
});

describe('OpenAPI responses: the statuses and headers documented are the ones sent', () => {
  let t: TestApp;
  let document: any;
  before(async () => {
    t = await createTestApp({ FOLIO_RATE_LIMIT_PER_MINUTE: '1' });
    document = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
  });
  after(async () => { await t.close(); });

  /** The header names a documented response lists, lower-cased as HTTP/1.1 answers carry them. */
  function documentedHeaders(path: string, method: string, status: string): string[] {
    const response = document.paths[path][method].responses[status];
    assert.ok(response, `${method} ${path} documents ${status}`);
    return Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()).sort();
  }

  function sentHeaders(response: { headers: Record<string, unknown> }, documented: string[]): string[] {
    return documented.filter((name) => response.headers[name] !== undefined);
  }

  it('the bearer API: RateLimit-* on 200, a challenge on 401, Retry-After and RateLimit-* on 429', async () => {
    const user = await createUser(t);
    const { access_token: token } = await obtainTokens(t, await createClient(t, user), user);

    const ok = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(token) });
    assert.equal(ok.statusCode, 200);
    const onOk = documentedHeaders('/api/v2/portfolios.json', 'get', '200');
    assert.deepEqual(onOk, ['ratelimit-limit', 'ratelimit-policy', 'ratelimit-remaining', 'ratelimit-reset']);
    assert.deepEqual(sentHeaders(ok, onOk), onOk);
    assert.deepEqual(Object.keys(ok.json()).sort(), ['links', 'portfolios'], 'the headers member stays out of the body');

    const limited = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json', headers: bearer(token) });
    assert.equal(limited.statusCode, 429);
    const onLimited = documentedHeaders('/api/v2/portfolios.json', 'get', '429');
    assert.deepEqual(sentHeaders(limited, onLimited), onLimited);
    assert.ok(onLimited.includes('retry-after'));

    const refused = await t.app.inject({ method: 'GET', url: '/api/v2/portfolios.json' });
    assert.equal(refused.statusCode, 401);
    const onRefused = documentedHeaders('/api/v2/portfolios.json', 'get', '401');
    assert.deepEqual(onRefused, ['www-authenticate']);
    assert.deepEqual(sentHeaders(refused, onRefused), onRefused);
    assert.equal(refused.json().error, 'invalid_token');
  });

  it('the token endpoint: invalid_client on 401 with the Basic challenge, the rest of RFC 6749 §5.2 on 400', async () => {
    const failedBasic = await tokenRequest(t, { grant_type: 'client_credentials' }, basic('nobody', 'wrong'));
    assert.equal(failedBasic.statusCode, 401);
    assert.equal(failedBasic.json().error, 'invalid_client');
    const onFailed = documentedHeaders('/oauth2/token', 'post', '401');
    assert.deepEqual(onFailed, ['www-authenticate']);
    assert.deepEqual(sentHeaders(failedBasic, onFailed), onFailed);

    const user = await createUser(t);
    const client = await createClient(t, user);
    const badGrant = await tokenRequest(t, { grant_type: 'authorization_code', code: 'nope', redirect_uri: 'https://client.example/callback' }, basic(client.clientId, client.clientSecret));
    assert.equal(badGrant.statusCode, 400);
    assert.match(document.paths['/oauth2/token'].post.responses['400'].description, new RegExp(badGrant.json().error));
  });

  it('documents 503 with Retry-After wherever the database is needed', () => {
    for (const [path, method] of [['/oauth2/token', 'post'], ['/oauth2/revoke', 'post'], ['/oauth2/introspect', 'post'], ['/api/v2/portfolios', 'get'], ['/oauth2/token/info', 'get']] as const) {
      assert.deepEqual(documentedHeaders(path, method, '503'), ['retry-after'], `${method} ${path}`);
    }
  });
});

describe('interactive API docs at /api/v2/docs', () => {
  let app: FastifyInstance;
  let storage: OpenedStorage;
  before(async () => {
    storage = await createTestStorage();
    const config = loadConfig({ FOLIO_LOG_LEVEL: 'silent' });
    app = await buildApp({ config, storage, clock: new FixedClock(0), random: cryptoRandom, logger: createLogger(config) });
  });
  after(async () => { await app.close(); await storage.close(); });

  it('loads only same-origin scripts and styles, under the site-wide CSP', async () => {
    const page = await app.inject({ method: 'GET', url: '/api/v2/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.doesNotMatch(String(page.headers['content-security-policy']), /unsafe-inline/);
    assert.doesNotMatch(page.body, /<script>|<script [^>]*>[^<\s]/, 'no inline scripts');
    for (const match of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) {
      assert.ok(!/^[a-z]+:/i.test(match[1]!), `${match[1]} is same-origin`);
      const asset = await app.inject({ method: 'GET', url: new URL(match[1]!, 'http://x/api/v2/docs').pathname });
      assert.equal(asset.statusCode, 200, match[1]);
    }
  });

  it('serves the same page with a trailing slash', async () => {
    const [bare, slashed] = await Promise.all(['/api/v2/docs', '/api/v2/docs/'].map((url) => app.inject({ method: 'GET', url })));
    assert.equal(slashed!.statusCode, 200);
    assert.match(String(slashed!.headers['content-type']), /^text\/html/);
    assert.equal(slashed!.body, bare!.body);
  });

  it("points Swagger UI at Folio's document and its OAuth redirect page, with no outside validator", async () => {
    const initializer = await app.inject({ method: 'GET', url: '/api/v2/docs/static/swagger-initializer.js' });
    assert.equal(initializer.statusCode, 200);
    assert.match(String(initializer.headers['content-type']), /^text\/javascript/);
    assert.match(initializer.body, /url: new URL\("\/api\/v2\/openapi\.json", window\.location\.href\)\.href/);
    assert.match(initializer.body, /oauth2RedirectUrl: new URL\("\/api\/v2\/docs\/static\/oauth2-redirect\.html"/);
    assert.match(initializer.body, /validatorUrl: null/);
    assert.doesNotMatch(initializer.body, /petstore/);
    const redirectPage = await app.inject({ method: 'GET', url: '/api/v2/docs/static/oauth2-redirect.html' });
    assert.equal(redirectPage.statusCode, 200);
    assert.doesNotMatch(redirectPage.body, /<script>/, 'no inline script');
    const redirectScript = /<script src="([^"]+)"/.exec(redirectPage.body)![1]!;
    const script = await app.inject({ method: 'GET', url: new URL(redirectScript, 'http://x/api/v2/docs/static/oauth2-redirect.html').pathname });
    assert.equal(script.statusCode, 200);
  });

  it("serves swagger-ui-dist's files with their types, cacheable, and HEAD without a body", async () => {
    const expected = {
      'swagger-ui-bundle.js': /^text\/javascript/, 'swagger-ui.css': /^text\/css/, 'swagger-ui.css.map': /^application\/json/, 'favicon-16x16.png': /^image\/png/,
    };
    for (const [name, type] of Object.entries(expected)) {
      const response = await app.inject({ method: 'GET', url: `/api/v2/docs/static/${name}` });
      assert.equal(response.statusCode, 200, name);
      assert.match(String(response.headers['content-type']), type, name);
      assert.equal(response.headers['cache-control'], 'public, max-age=3600', name);
      assert.ok(response.rawPayload.length > 100, name);
    }
    const head = await app.inject({ method: 'HEAD', url: '/api/v2/docs/static/swagger-ui.css' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('serves nothing else, of the package or of the disk', async () => {
    for (const name of ['index.js', 'package.json', 'absolute-path.js', 'swagger-ui-bundle.js.map', 'constructor', '__proto__', 'toString',
      '..%2Fpackage.json', '..%2F..%2F..%2F..%2Fpackage.json', '%2Fetc%2Fpasswd']) {
      const response = await app.inject({ method: 'GET', url: `/api/v2/docs/static/${name}` });
      assert.equal(response.statusCode, 404, name.slice(0, 40));
      assert.equal(response.json().error, 'not_found', name.slice(0, 40));
    }
    // As for any path parameter past Fastify's limit.
    const overlong = await app.inject({ method: 'GET', url: `/api/v2/docs/static/${'x'.repeat(5000)}` });
    assert.equal(overlong.statusCode, 400);
    assert.equal(overlong.json().error, 'invalid_request');
  });

  it('answers other methods with 405 and Allow', async () => {
    for (const url of ['/api/v2/docs', '/api/v2/docs/', '/api/v2/docs/static/swagger-ui.css', '/api/v2/docs/static/swagger-initializer.js']) {
      const response = await app.inject({ method: 'POST', url });
      assert.equal(response.statusCode, 405, url);
      assert.equal(response.headers.allow, 'GET, HEAD', url);
    }
  });
});
