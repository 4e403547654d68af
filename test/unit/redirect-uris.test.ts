import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
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
