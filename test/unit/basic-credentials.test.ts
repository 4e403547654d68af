// RFC 6749 §2.3.1 client credentials in an HTTP Basic header, as real client libraries send them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBasicCredentials } from '../../src/http/client-request.ts';
import { OAuthError } from '../../src/oauth/errors.ts';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('HTTP Basic client credentials (RFC 6749 §2.3.1)', () => {
  it('form-decodes the id and the secret after splitting at the first colon', () => {
    assert.deepEqual(readBasicCredentials(basic('my%3Aclient+id:s%3Acret')), { clientId: 'my:client id', clientSecret: 's:cret' });
    assert.deepEqual(readBasicCredentials(basic('https%3A%2F%2Fapp.example%2Fclient.json:')), {
      clientId: 'https://app.example/client.json', clientSecret: '',
    });
  });

  it('keeps an unencoded URL client_id whole, as requests-oauthlib and Ruby oauth2 send it', () => {
    assert.deepEqual(readBasicCredentials(basic('https://app.example/client.json:')), {
      clientId: 'https://app.example/client.json', clientSecret: '',
    });
    assert.deepEqual(readBasicCredentials(basic('https://app.example:8443/c.json:')), {
      clientId: 'https://app.example:8443/c.json', clientSecret: '',
    });
  });

  it('refuses malformed credentials with invalid_client', () => {
    for (const header of [basic('no-colon'), basic('bad%:secret'), 'Basic !!!']) {
      assert.throws(() => readBasicCredentials(header), (error: unknown) => error instanceof OAuthError && error.code === 'invalid_client');
    }
    assert.equal(readBasicCredentials('Bearer abc'), undefined);
  });
});
