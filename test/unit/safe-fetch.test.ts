// Fetching client metadata documents without SSRF, against a local node:http server.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addressRange, forbiddenAddressReason, type Resolver } from '../../src/platform/public-addresses.ts';
import { DocumentFetchError, type FetchOptions, fetchJsonDocument, resolveDestination } from '../../src/platform/safe-fetch.ts';

const document = { client_id: 'https://app.example/client.json', client_name: 'App', redirect_uris: ['https://app.example/cb'] };

interface TestServer {
  origin: string;
  port: number;
  connections: number;
  /** Set when a response that was still being written lost its connection. */
  abandoned: Set<string>;
  close(): Promise<void>;
}

function route(request: http.IncomingMessage, response: http.ServerResponse, server: TestServer): void {
  const path = request.url ?? '/';
  response.on('close', () => {
    if (!response.writableFinished) server.abandoned.add(path);
  });
  const json = (body: string | Buffer, headers: http.OutgoingHttpHeaders = {}) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...headers });
    response.end(body);
  };
  if (path === '/ok') return json(JSON.stringify(document), { 'cache-control': 'max-age=600' });
  if (path === '/user-agent') return json(JSON.stringify({ userAgent: request.headers['user-agent'], accept: request.headers.accept }));
  if (path === '/html') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
  if (path === '/json-ish') return void response.writeHead(200, { 'content-type': 'application/jsonp' }).end('{}');
  if (path === '/invalid-json') return json('{"client_id": ');
  if (path === '/not-utf8') return json(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
  if (path === '/404' || path === '/500') return void response.writeHead(Number(path.slice(1)), { 'content-type': 'application/json' }).end('{}');
  if (path === '/declared-large') {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': 100_000 });
    return void response.write(' '.repeat(1000));
  }
  if (path === '/streamed-large') {
    response.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => response.write(' '.repeat(1024)), 5);
    return void response.on('close', () => clearInterval(timer));
  }
  if (path === '/no-answer') return;
  if (path === '/slow-body') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{');
    const timer = setInterval(() => response.write(' '), 20);
    return void response.on('close', () => clearInterval(timer));
  }
  const redirects: Record<string, string> = {
    '/redirect-to-ok': '/ok',
    '/redirect-loop': '/redirect-loop',
    '/redirect-private': 'https://internal.test/client.json',
    '/redirect-metadata': 'https://169.254.169.254/latest/meta-data/',
    '/redirect-plain-http': 'http://app.example/client.json',
  };
  const location = redirects[path];
  if (location !== undefined) return void response.writeHead(302, { location }).end();
  response.writeHead(404).end();
}

async function startServer(host = '127.0.0.1'): Promise<TestServer> {
  const server = http.createServer();
  const state: TestServer = {
    origin: '', port: 0, connections: 0, abandoned: new Set(),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  server.on('request', (request, response) => route(request, response, state));
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://${host}:${state.port}`;
  return state;
}

const fakeDns = (table: Record<string, string[]>): Resolver => async (hostname) => {
  const addresses = table[hostname];
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const development: FetchOptions = {
  allowPrivateAddresses: false, allowLoopbackHttp: true, userAgent: 'Folio-test', timeoutMs: 2000, resolve: fakeDns({}),
};
const production: FetchOptions = { ...development, allowLoopbackHttp: false };

async function refusal(promise: Promise<unknown>, reason: RegExp): Promise<DocumentFetchError> {
  const error = await promise.then(() => assert.fail('expected a refusal'), (caught: unknown) => caught);
  assert.ok(error instanceof DocumentFetchError, String(error));
  assert.match(error.reason, reason);
  return error;
}

describe('fetchJsonDocument from a loopback server (allowLoopbackHttp)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('returns the parsed document and its caching headers', async () => {
    const fetched = await fetchJsonDocument(`${server.origin}/ok`, development);
    assert.deepEqual(fetched.json, document);
    assert.deepEqual(fetched.caching.cacheControl, 'max-age=600');
  });

  it('sends its user agent and asks for JSON', async () => {
    const fetched = await fetchJsonDocument(`${server.origin}/user-agent`, development);
    assert.deepEqual(fetched.json, { userAgent: 'Folio-test', accept: 'application/json' });
  });

  it('refuses answers other than 200', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/404`, development), /answered HTTP 404; only 200 is accepted/);
    await refusal(fetchJsonDocument(`${server.origin}/500`, development), /answered HTTP 500/);
  });

  it('refuses a document not served as application/json', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/html`, development), /is not served as application\/json/);
    await refusal(fetchJsonDocument(`${server.origin}/json-ish`, development), /is not served as application\/json/);
  });

  it('refuses a body that is not JSON or not UTF-8', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/invalid-json`, development), /\/invalid-json is not valid JSON/);
    await refusal(fetchJsonDocument(`${server.origin}/not-utf8`, development), /is not valid JSON/);
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/declared-large`, { ...development, maxBytes: 5120 }), /is larger than 5120 bytes/);
  });

  it('stops reading a streamed body once it passes the limit and drops the connection', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/streamed-large`, { ...development, maxBytes: 5120 }), /is larger than 5120 bytes/);
    await waitFor(() => server.abandoned.has('/streamed-large'));
  });

  it('gives up on a server that never answers', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/no-answer`, { ...development, timeoutMs: 200 }), /did not answer within 200 ms/);
  });

  it('counts the body against the same deadline', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/slow-body`, { ...development, timeoutMs: 200 }), /did not answer within 200 ms/);
    await waitFor(() => server.abandoned.has('/slow-body'));
  });

  it('does not follow redirects unless allowed to', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/redirect-to-ok`, development), /redirects, and redirects are not followed/);
    const fetched = await fetchJsonDocument(`${server.origin}/redirect-to-ok`, { ...development, maxRedirects: 1 });
    assert.deepEqual(fetched.json, document);
  });

  it('stops after maxRedirects redirects', async () => {
    await refusal(fetchJsonDocument(`${server.origin}/redirect-loop`, { ...development, maxRedirects: 3 }), /redirects more than 3 times/);
  });

  it('checks a redirect target like the first URL: scheme, DNS and addresses', async () => {
    const options = { ...development, maxRedirects: 2, resolve: fakeDns({ 'internal.test': ['10.0.0.1'] }) };
    await refusal(fetchJsonDocument(`${server.origin}/redirect-private`, options), /^Folio does not fetch documents from internal\.test$/);
    await refusal(fetchJsonDocument(`${server.origin}/redirect-metadata`, options), /^Folio does not fetch documents from 169\.254\.169\.254$/);
    await refusal(fetchJsonDocument(`${server.origin}/redirect-plain-http`, options), /does not use https/);
  });
});

describe('addresses refused before any connection (draft "Server Side Request Forgery (SSRF) Attacks")', () => {
  const forbidden = [
    'https://127.0.0.1/client.json', 'https://localhost/client.json', 'https://10.0.0.1/client.json',
    'https://169.254.169.254/latest/meta-data/', 'https://[::1]/client.json', 'https://[fd00::1]/client.json',
    'https://[::ffff:127.0.0.1]/client.json', 'https://2130706433/client.json', 'https://0.0.0.0/client.json',
    'https://[fd00:ec2::254]/client.json', 'https://100.64.0.1/client.json', 'https://192.168.1.1/client.json',
  ];

  it('refuses loopback, private, link-local, unique-local and metadata addresses in production', async () => {
    const resolve = fakeDns({ localhost: ['127.0.0.1', '::1'] });
    for (const url of forbidden) {
      await refusal(resolveDestination(url, { ...production, resolve }), /^Folio does not fetch documents from /);
    }
  });

  it('refuses a host when any one of its addresses is forbidden', async () => {
    const resolve = fakeDns({ 'mixed.test': ['93.184.215.14', '10.1.2.3'], 'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    await refusal(resolveDestination('https://mixed.test/c', { ...production, resolve }), /mixed\.test/);
    const destination = await resolveDestination('https://public.test/c', { ...production, resolve });
    assert.equal(destination.addresses.length, 2);
  });

  it('keeps the resolved address out of the public reason', async () => {
    const error = await refusal(resolveDestination('https://internal.test/c', { ...production, resolve: fakeDns({ 'internal.test': ['10.9.8.7'] }) }), /internal\.test/);
    assert.doesNotMatch(error.reason, /10\.9\.8\.7/);
    assert.match(String((error.cause as Error).message), /10\.9\.8\.7, special-use \(private\)/);
  });

  it('answers an unknown host exactly like a forbidden one', async () => {
    const unknown = await refusal(resolveDestination('https://nowhere.test/c', production), /./);
    const internal = await refusal(resolveDestination('https://nowhere.test/c', { ...production, resolve: fakeDns({ 'nowhere.test': ['10.0.0.1'] }) }), /./);
    assert.equal(unknown.reason, internal.reason);
  });

  it('refuses plain http, and loopback addresses for a host that is not loopback, even in development', async () => {
    await refusal(resolveDestination('http://app.example/c', development), /does not use https/);
    await refusal(resolveDestination('http://127.0.0.1/c', production), /does not use https/);
    await refusal(resolveDestination('https://rebind.test/c', { ...development, resolve: fakeDns({ 'rebind.test': ['127.0.0.1'] }) }), /rebind\.test/);
  });

  it('opens private ranges, but never metadata services, when the operator allows private addresses', async () => {
    const options = { ...production, allowPrivateAddresses: true };
    for (const url of ['https://10.0.0.1/c', 'https://[fd12::1]/c', 'https://100.64.0.1/c']) await resolveDestination(url, options);
    for (const url of ['https://169.254.169.254/c', 'https://[fd00:ec2::254]/c', 'https://100.100.100.200/c', 'https://127.0.0.1/c']) {
      await refusal(resolveDestination(url, options), /^Folio does not fetch documents from /);
    }
  });

  it('never connects to a forbidden address, even with a server listening there', async () => {
    const server = await startServer();
    try {
      const resolve = fakeDns({ 'docs.test': ['127.0.0.1'] });
      await refusal(fetchJsonDocument(`https://docs.test:${server.port}/ok`, { ...production, resolve }), /docs\.test/);
      assert.equal(server.connections, 0);
    } finally {
      await server.close();
    }
  });

  it('connects to the address it checked, not to one from a second look-up', async () => {
    // Nothing but the checked 127.0.0.2 answers; the system's localhost is 127.0.0.1 or ::1.
    const server = await startServer('127.0.0.2');
    try {
      const fetched = await fetchJsonDocument(`http://localhost:${server.port}/ok`, { ...development, resolve: fakeDns({ localhost: ['127.0.0.2'] }) });
      assert.deepEqual(fetched.json, document);
    } finally {
      await server.close();
    }
  });
});

describe('address classification', () => {
  it('sees the IPv4 address inside IPv4-mapped and NAT64 addresses', () => {
    assert.equal(addressRange('::ffff:127.0.0.1'), 'loopback');
    assert.equal(addressRange('64:ff9b::a00:1'), 'private');
    assert.equal(addressRange('64:ff9b::808:808'), 'unicast');
    assert.equal(addressRange('::7f00:1'), 'ipv4Compatible');
  });

  it('allows only ordinary public unicast addresses by default', () => {
    const policy = { allowPrivateAddresses: false, allowLoopback: false };
    for (const address of ['93.184.215.14', '2606:4700::1111', '::ffff:8.8.8.8']) assert.equal(forbiddenAddressReason(address, policy), null, address);
    for (const address of ['224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.1', '::', 'fe80::1', '2002:a00:1::1', 'not-an-address']) {
      assert.notEqual(forbiddenAddressReason(address, policy), null, address);
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 200) assert.fail('condition never became true');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
