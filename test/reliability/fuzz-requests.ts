// Random HTTP requests for the fuzz test, as fast-check arbitraries: every route
// the app registers, any method, broken paths and query strings, repeated and
// huge parameters, wrong content types, random bytes, invalid UTF-8 and
// truncated multipart bodies, with or without real credentials.
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** Real values the fuzzer mixes in, so requests get past authentication into the handlers. */
export interface FuzzCredentials {
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  cookie: string;
  csrfToken: string;
  email: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
const PARAMETER_NAMES = [
  'grant_type', 'client_id', 'client_secret', 'redirect_uri', 'response_type', 'state', 'code', 'code_verifier',
  'code_challenge', 'code_challenge_method', 'scope', 'refresh_token', 'token', 'token_type_hint', 'prompt', 'prompt_login',
  'email', 'password', 'confirm', 'name', 'csrf_token', 'return_to', 'decision', 'notice', 'access_token', 'redirect_uris',
  'client_type', 'pkce_required', 'currency_code', 'country_code', 'financial_year_end', 'inception_date', 'tz_name', '__proto__', 'constructor', '',
];

const brokenEncodings = fc.constantFrom('%', '%zz', '%C3%28', '%E2%82', '%FF', '%00', '%%', '%u0041', '%F0%9F', '%ED%A0%80', '+', '&&', '==', '%0D%0A');

/** Strings a parameter may hold: sensible values, garbage, broken encodings and huge ones. */
function values(credentials: FuzzCredentials): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(
      'authorization_code', 'client_credentials', 'refresh_token', 'password', 'code', 'token', 'read', 'write', 'S256', 'plain',
      'none', 'login', 'consent', 'approve', 'deny', 'public', 'confidential', 'on', 'https://client.example/callback',
      'urn:ietf:wg:oauth:2.0:oob', 'http://127.0.0.1:9/cb', 'AUD', 'NZ', '06-30', '2020-01-01', 'Pacific/Auckland', '/',
      '//evil.example', 'javascript:alert(1)', 'folio_at_', 'folio_rt_x', 'null', '-1', '0', '1', '99999999999999999999', '1e309',
    ) },
    { weight: 2, arbitrary: fc.constantFrom(credentials.clientId, credentials.clientSecret, credentials.accessToken, credentials.refreshToken, credentials.csrfToken, credentials.email) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: brokenEncodings },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((length) => 'x'.repeat(length)) },
  );
}

/** A query string or urlencoded body: repeated names, broken encodings, raw bytes. */
function encodedPairs(credentials: FuzzCredentials): fc.Arbitrary<string> {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PARAMETER_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
  const pair = fc.tuple(name, values(credentials), fc.constantFrom('encode', 'raw', 'broken', 'bare'), brokenEncodings)
    .map(([key, value, style, broken]) => {
      if (style === 'bare') return encodeURIComponent(key);
      if (style === 'raw') return `${key}=${value}`;
      if (style === 'broken') return `${encodeURIComponent(key)}=${encodeURIComponent(value).slice(0, 10)}${broken}`;
      return `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
    });
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(pair, { maxLength: 12 }).map((pairs) => pairs.join('&')) },
    // Past the 100-parameter limit, and one parameter given many times.
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PARAMETER_NAMES), fc.integer({ min: 2, max: 200 })).map(([key, times]) => Array.from({ length: times }, (_, i) => `${key}=${i}`).join('&')) },
  );
}

function paths(routes: string[]): fc.Arbitrary<string> {
  const segment = fc.oneof(
    fc.constantFrom('1', '0', '-1', '2147483648', '99999999999999999999', 'abc', '1.json', '%00', '%zz', '%C3%28', '..', '%2e%2e', 'new', '1e3', ' ', '%20'),
    fc.string({ maxLength: 10 }).map(encodeURIComponent),
    fc.integer({ min: 200, max: 5000 }).map((length) => '9'.repeat(length)),
  );
  const fromRoute = fc.tuple(fc.constantFrom(...routes), segment, segment, fc.constantFrom('', '', '', '.json', '/', '//', '.xml', '/extra', '%', '%zz', '?', '#x'))
    .map(([route, first, second, suffix]) => {
      let seen = 0;
      return route.replace(/:[A-Za-z]+/g, () => (seen++ === 0 ? first : second)) + suffix;
    });
  return fc.oneof({ weight: 6, arbitrary: fromRoute }, { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`) });
}

function multipartBody(credentials: FuzzCredentials): fc.Arbitrary<{ contentType: string; body: Buffer }> {
  return fc.tuple(
    fc.array(fc.tuple(fc.constantFrom(...PARAMETER_NAMES), values(credentials)), { maxLength: 6 }),
    fc.constantFrom('XyZ', 'a'.repeat(70), '', '"quoted"', 'x y'),
    fc.boolean(), fc.boolean(), fc.nat(),
  ).map(([fields, boundary, withFile, truncate, cut]) => {
    const parts = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    if (withFile) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`);
    let body = `${parts.join('')}--${boundary}--\r\n`;
    if (truncate) body = body.slice(0, cut % (body.length + 1));
    return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.from(body) };
  });
}

function bodies(credentials: FuzzCredentials): fc.Arbitrary<{ contentType: string | undefined; body: Buffer | undefined }> {
  const types = fc.constantFrom(
    'application/x-www-form-urlencoded', 'application/json', 'multipart/form-data', 'text/plain', 'application/xml',
    'application/x-www-form-urlencoded; charset=latin1', 'application/json; charset=utf-16', '*/*', 'garbage', ';;;', undefined,
  );
  return fc.oneof(
    fc.tuple(fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8'), encodedPairs(credentials))
      .map(([contentType, text]) => ({ contentType, body: Buffer.from(text) })),
    fc.tuple(types, fc.oneof(
      fc.dictionary(fc.constantFrom(...PARAMETER_NAMES), values(credentials), { maxKeys: 8 }).map((object) => JSON.stringify(object)),
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 60 }),
    )).map(([contentType, text]) => ({ contentType: contentType ?? 'application/json', body: Buffer.from(text) })),
    multipartBody(credentials),
    // Random bytes, which are mostly invalid UTF-8, under any content type.
    fc.tuple(types, fc.uint8Array({ maxLength: 300 })).map(([contentType, bytes]) => ({ contentType, body: Buffer.from(bytes) })),
    fc.tuple(types, encodedPairs(credentials), fc.uint8Array({ minLength: 1, maxLength: 4 }))
      .map(([contentType, text, bytes]) => ({ contentType, body: Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xc3]), Buffer.from(bytes)]) })),
    fc.constant({ contentType: undefined, body: undefined }),
  );
}

function authorization(credentials: FuzzCredentials): fc.Arbitrary<string | undefined> {
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      `Bearer ${credentials.accessToken}`, `bearer ${credentials.accessToken}`, `Bearer ${credentials.refreshToken}`, basic(credentials.clientId, credentials.clientSecret),
      basic(credentials.clientId, 'wrong'), basic('%zz', '%C3%28'), 'Basic', 'Basic !!!', 'Bearer', 'Bearer a b', 'Digest x', `Bearer ${'A'.repeat(5000)}`,
    ),
    fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((text) => `Bearer ${text}`),
    fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((text) => `Basic ${Buffer.from(text).toString('base64')}`),
  );
}

/** One random request against `routes` (Fastify route URLs such as /api/v2/portfolios/:id). */
export function fuzzRequests(routes: string[], credentials: FuzzCredentials): fc.Arbitrary<FuzzRequest> {
  const headerValue = fc.string({ unit: 'grapheme-ascii', maxLength: 80 });
  return fc.record({
    method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.constantFrom('PROPFIND', 'TRACE', 'CONNECT', 'MKCOL') }),
    path: paths(routes),
    query: fc.option(encodedPairs(credentials), { nil: undefined }),
    body: bodies(credentials),
    authorization: authorization(credentials),
    cookie: fc.oneof(fc.constant(undefined), fc.constant(credentials.cookie), fc.constant(`${credentials.cookie}; folio_session=x`), headerValue.map((text) => `folio_session=${text}`)),
    extra: fc.dictionary(fc.constantFrom('accept', 'accept-language', 'x-forwarded-for', 'origin', 'referer', 'x-requested-with', 'content-language'), headerValue, { maxKeys: 3 }),
  }).map(({ method, path, query, body, authorization: auth, cookie, extra }) => {
    const headers: Record<string, string> = { ...extra };
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
    if (auth !== undefined) headers.authorization = auth;
    if (cookie !== undefined) headers.cookie = cookie;
    return { method, url: query === undefined ? path : `${path}?${query}`, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body.body };
  });
}
