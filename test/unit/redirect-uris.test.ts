import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildRedirect, isRegisteredRedirectUri } from '../../src/oauth/redirect-uris.ts';
import { validateRedirectUri } from '../../src/platform/redirect-uris.ts';

describe('redirect URI registration rules', () => {
  test('accepts https, loopback http, private-use schemes and the out-of-band URI', () => {
    for (const uri of [
      'https://app.example.com/callback', 'https://app.example.com:8443/cb?tenant=1',
      'http://localhost:8080/callback', 'http://127.0.0.1/callback', 'http://[::1]:9000/cb',
      'com.example.app:/oauth2redirect', 'com.example.app:/cb', 'urn:ietf:wg:oauth:2.0:oob',
    ]) {
      assert.equal(validateRedirectUri(uri), null, uri);
    }
  });

  test('refuses fragments (RFC 6749 §3.1.2)', () => {
    assert.match(validateRedirectUri('https://app.example.com/cb#x')!, /fragment/);
    assert.match(validateRedirectUri('https://app.example.com/cb#')!, /fragment/);
  });

  test('refuses plain http off loopback, relative and dangerous URIs', () => {
    const refused: Record<string, RegExp> = {
      'http://app.example.com/cb': /https unless its host is loopback/,
      'http://127.0.0.1.evil.example/cb': /https unless its host is loopback/,
      '/callback': /absolute URI/,
      'app.example.com/cb': /absolute URI/,
      'javascript:alert(1)': /private-use scheme/,
      'data:text/html,hi': /private-use scheme/,
      'file:///etc/passwd': /private-use scheme/,
      'urn:ietf:wg:oauth:2.0:oob:auto': /private-use scheme/,
      'https://user:pw@app.example.com/cb': /credentials/,
      'https://app.example.com/c b': /unsafe characters/,
      '': /empty/,
    };
    for (const [uri, reason] of Object.entries(refused)) {
      const problem = validateRedirectUri(uri);
      assert.notEqual(problem, null, uri);
      assert.match(problem!, reason, uri);
    }
  });
});

describe('redirect URI matching (RFC 6749 §3.1.2.3)', () => {
  const registered = ['https://app.example.com/callback', 'com.example.app:/oauth2redirect', 'urn:ietf:wg:oauth:2.0:oob'];

  test('matches a registered URI exactly', () => {
    for (const uri of registered) assert.equal(isRegisteredRedirectUri(uri, registered), true, uri);
  });

  test('refuses anything that is not the same string', () => {
    for (const uri of [
      'https://app.example.com/callback/', 'https://app.example.com/Callback', 'https://APP.example.com/callback',
      'https://app.example.com/callback?x=1', 'https://app.example.com/callback#x', 'https://app.example.com:443/callback',
      'https://app.example.com:8443/callback', 'http://app.example.com/callback', 'https://app.example.com.evil/callback',
      'https://app.example.com/callback/../callback', 'urn:ietf:wg:oauth:2.0:oob:auto', '',
    ]) {
      assert.equal(isRegisteredRedirectUri(uri, registered), false, uri);
    }
  });

  test('matches a loopback IP redirect on any port (RFC 8252 §7.3)', () => {
    assert.equal(isRegisteredRedirectUri('http://127.0.0.1:53122/callback', ['http://127.0.0.1/callback']), true);
    assert.equal(isRegisteredRedirectUri('http://127.0.0.1/callback', ['http://127.0.0.1:8080/callback']), true);
    assert.equal(isRegisteredRedirectUri('http://[::1]:61000/cb', ['http://[::1]/cb']), true);
  });

  test('still requires scheme, host, path and query of a loopback redirect to match', () => {
    const loopback = ['http://127.0.0.1/callback'];
    for (const uri of [
      'http://127.0.0.1:53122/other', 'http://127.0.0.1:53122/callback?x=1', 'https://127.0.0.1:53122/callback',
      'http://127.0.0.2:53122/callback', 'http://[::1]:53122/callback', 'http://127.0.0.1.evil.example:53122/callback',
    ]) {
      assert.equal(isRegisteredRedirectUri(uri, loopback), false, uri);
    }
  });

  test('does not extend the any-port rule to localhost or to other hosts', () => {
    assert.equal(isRegisteredRedirectUri('http://localhost:5000/cb', ['http://localhost/cb']), false);
    assert.equal(isRegisteredRedirectUri('http://localhost:5000/cb', ['http://localhost:5000/cb']), true);
    assert.equal(isRegisteredRedirectUri('https://app.example.com:8443/callback', ['https://app.example.com/callback']), false);
  });
});

describe('building the redirect (RFC 6749 §4.1.2)', () => {
  test('adds the response parameters, encoded', () => {
    const url = new URL(buildRedirect('https://app.example.com/callback', { code: 'c1', state: 'a b&c=d/é', iss: 'http://folio.test' }));
    assert.equal(url.origin + url.pathname, 'https://app.example.com/callback');
    assert.equal(url.searchParams.get('code'), 'c1');
    assert.equal(url.searchParams.get('state'), 'a b&c=d/é');
    assert.equal(url.searchParams.get('iss'), 'http://folio.test');
  });

  test('leaves out parameters that are undefined', () => {
    const url = new URL(buildRedirect('https://app.example.com/callback', { code: 'c1', state: undefined }));
    assert.deepEqual([...url.searchParams.keys()], ['code']);
  });

  test('keeps the query the client registered, byte for byte (RFC 6749 §3.1.2)', () => {
    for (const registered of ['https://app.example.com/cb?tenant=1', 'https://app.example.com/cb?flag', 'https://app.example.com/cb?next=%2Fhome&x=a~b']) {
      const built = buildRedirect(registered, { code: 'c1', state: 's' });
      assert.ok(built.startsWith(`${registered}&`), `${registered} → ${built}`);
      assert.equal(new URL(built).searchParams.get('code'), 'c1');
    }
  });

  test('works for private-use schemes and loopback ports', () => {
    assert.equal(buildRedirect('com.example.app:/oauth2redirect', { code: 'c1' }), 'com.example.app:/oauth2redirect?code=c1');
    assert.equal(buildRedirect('http://127.0.0.1:53122/callback', { code: 'c1' }), 'http://127.0.0.1:53122/callback?code=c1');
  });
});
