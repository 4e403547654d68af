// application/x-www-form-urlencoded as the token endpoint and the web forms read it
// (src/http/form-body.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { malformedQueryError, parseQueryString, parseUrlEncoded, repeatedParamsOf } from '../../src/http/form-body.ts';
import { OAuthError } from '../../src/oauth/errors.ts';

describe('parseUrlEncoded', () => {
  it('decodes plus signs and percent-escapes in names and values, and keeps plain ones as sent', () => {
    const params = parseUrlEncoded('grant_type=client_credentials&scope=read+write&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fa%3D1%2B2&na%6De=%C3%A9t%C3%A9&empty=&bare');
    assert.deepEqual({ ...params }, {
      grant_type: 'client_credentials',
      scope: 'read write',
      redirect_uri: 'https://app.example/cb?a=1+2',
      name: 'été',
      empty: '',
      bare: '',
    });
  });

  it('remembers a parameter given twice, keeping its first value', () => {
    const params = parseUrlEncoded('scope=read&scope=write');
    assert.equal(params.scope, 'read');
    assert.deepEqual(repeatedParamsOf(params), ['scope']);
  });

  it('refuses bad percent-encoding wherever it is', () => {
    for (const body of ['a=%zz', '%zz=1', 'a=b%', 'a=%C3%28']) {
      assert.throws(() => parseUrlEncoded(body), (error: unknown) => error instanceof OAuthError && error.code === 'invalid_request', body);
    }
  });
});

describe('parseQueryString (Fastify\'s querystringParser)', () => {
  it('reads a query string as parseUrlEncoded reads a body, repeated names included', () => {
    const query = parseQueryString('notice=updated&x=1&x=2');
    assert.deepEqual({ ...query }, { notice: 'updated', x: '1' });
    assert.deepEqual(repeatedParamsOf(query), ['x']);
    assert.equal(malformedQueryError(query), undefined);
  });

  it('never throws, since Fastify calls it outside any error handling: a malformed query carries its error', () => {
    for (const text of ['a=%zz', 'a=%00', Array.from({ length: 101 }, (_, i) => `p${i}=x`).join('&')]) {
      const query = parseQueryString(text);
      assert.deepEqual({ ...query }, {});
      const error = malformedQueryError(query);
      assert.ok(error instanceof OAuthError && error.code === 'invalid_request', text.slice(0, 20));
    }
  });
});
