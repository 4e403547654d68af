// application/x-www-form-urlencoded as the token endpoint and the web forms read it
// (src/http/form-body.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUrlEncoded, repeatedParamsOf } from '../../src/http/form-body.ts';
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
