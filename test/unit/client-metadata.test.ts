import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateClientMetadata } from '../../src/oauth/client-metadata.ts';
import { OAuthError } from '../../src/oauth/errors.ts';

function refuses(fn: () => unknown, code: string, description: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof OAuthError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.status, 400);
    assert.match(error.description, description);
    return true;
  });
}

const mcpClient = {
  client_name: 'Example MCP Client',
  redirect_uris: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

describe('RFC 7591 §2 client metadata for Dynamic Client Registration', () => {
  it('accepts what an MCP client sends as a public client', () => {
    assert.deepEqual(validateClientMetadata(mcpClient), {
      clientName: 'Example MCP Client',
      redirectUris: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
      tokenEndpointAuthMethod: 'none',
      confidential: false,
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: ['read'],
    });
  });

  it('applies the RFC defaults: authorization_code, code and client_secret_basic', () => {
    const metadata = validateClientMetadata({ client_name: 'Web app', redirect_uris: ['https://app.example/cb'] });
    assert.deepEqual(metadata.grantTypes, ['authorization_code']);
    assert.deepEqual(metadata.responseTypes, ['code']);
    assert.equal(metadata.tokenEndpointAuthMethod, 'client_secret_basic');
    assert.equal(metadata.confidential, true);
  });

  it('makes client_secret_post a confidential client too', () => {
    const metadata = validateClientMetadata({ ...mcpClient, token_endpoint_auth_method: 'client_secret_post' });
    assert.equal(metadata.confidential, true);
  });

  it('ignores unknown fields and reads null as absent', () => {
    const metadata = validateClientMetadata({
      ...mcpClient, software_id: 'x', contacts: ['a@example.com'], 'client_name#fr': 'Client', jwks_uri: 'https://app.example/jwks',
      logo_uri: null, scope: null,
    });
    assert.equal(metadata.clientName, 'Example MCP Client');
    assert.equal(metadata.logoUri, undefined);
  });

  it('refuses anything but a JSON object', () => {
    for (const json of [null, [], 'metadata', 42, true]) refuses(() => validateClientMetadata(json), 'invalid_client_metadata', /JSON object/);
  });

  it('refuses a known field of the wrong type, naming it', () => {
    const wrong: Record<string, unknown> = {
      client_name: 7, token_endpoint_auth_method: ['none'], grant_types: 'authorization_code', response_types: [1],
      scope: ['read'], client_uri: {}, logo_uri: 3,
    };
    for (const [field, value] of Object.entries(wrong)) {
      refuses(() => validateClientMetadata({ ...mcpClient, [field]: value }), 'invalid_client_metadata', new RegExp(`^${field} must`));
    }
  });
});

describe('redirect_uris (RFC 7591 §2, §3.2.2 invalid_redirect_uri)', () => {
  const withUris = (redirect_uris: unknown) => () => validateClientMetadata({ ...mcpClient, redirect_uris });

  it('is required and must be a non-empty array of strings', () => {
    refuses(() => validateClientMetadata({ client_name: 'App' }), 'invalid_redirect_uri', /redirect_uris is required/);
    refuses(withUris(null), 'invalid_redirect_uri', /required/);
    refuses(withUris('https://app.example/cb'), 'invalid_redirect_uri', /array of strings/);
    refuses(withUris(['https://app.example/cb', 5]), 'invalid_redirect_uri', /array of strings/);
    refuses(withUris([]), 'invalid_redirect_uri', /at least one/);
  });

  it('accepts https, loopback http and private-use schemes, dropping duplicates', () => {
    const uris = ['https://app.example/cb', 'http://[::1]/cb', 'com.example.app:/oauth2redirect', 'https://app.example/cb'];
    assert.deepEqual(validateClientMetadata({ ...mcpClient, redirect_uris: uris }).redirectUris, uris.slice(0, 3));
  });

  it('refuses each URI registration would refuse, quoting the reason', () => {
    refuses(withUris(['http://app.example/cb']), 'invalid_redirect_uri', /^redirect_uris: redirect URI must use https/);
    refuses(withUris(['https://app.example/cb#x']), 'invalid_redirect_uri', /fragment/);
    refuses(withUris(['javascript:alert(1)']), 'invalid_redirect_uri', /private-use scheme/);
    refuses(withUris([`https://app.example/${'a'.repeat(2000)}`]), 'invalid_redirect_uri', /at most 2000 characters/);
  });

  it('refuses the out-of-band URI for self-registered clients', () => {
    refuses(withUris(['urn:ietf:wg:oauth:2.0:oob']), 'invalid_redirect_uri', /not available to self-registered clients/);
  });

  it('refuses more than ten redirect URIs', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`);
    refuses(withUris(eleven), 'invalid_redirect_uri', /at most 10/);
    assert.equal(validateClientMetadata({ ...mcpClient, redirect_uris: eleven.slice(0, 10) }).redirectUris.length, 10);
  });
});

describe('token_endpoint_auth_method, grant_types and response_types', () => {
  it('refuses private_key_jwt and client_secret_jwt as unsupported, pointing to none', () => {
    for (const method of ['private_key_jwt', 'client_secret_jwt']) {
      refuses(() => validateClientMetadata({ ...mcpClient, token_endpoint_auth_method: method }), 'invalid_client_metadata', /not supported by Folio; use none/);
    }
    refuses(() => validateClientMetadata({ ...mcpClient, token_endpoint_auth_method: 'tls_client_auth' }), 'invalid_client_metadata', /must be one of/);
  });

  it('refuses client_credentials, since a self-registered client must act for a person', () => {
    refuses(() => validateClientMetadata({ ...mcpClient, grant_types: ['authorization_code', 'client_credentials'] }), 'invalid_client_metadata', /client_credentials is not available/);
  });

  it('refuses other grant types, an empty list, and refresh_token without authorization_code', () => {
    for (const grantType of ['implicit', 'password', 'urn:ietf:params:oauth:grant-type:device_code']) {
      refuses(() => validateClientMetadata({ ...mcpClient, grant_types: [grantType] }), 'invalid_client_metadata', /^grant_types: .* is not supported/);
    }
    refuses(() => validateClientMetadata({ ...mcpClient, grant_types: [] }), 'invalid_client_metadata', /grant_types must not be empty/);
    refuses(() => validateClientMetadata({ ...mcpClient, grant_types: ['refresh_token'] }), 'invalid_client_metadata', /must include authorization_code/);
  });

  it('accepts only the code response type', () => {
    assert.deepEqual(validateClientMetadata({ ...mcpClient, response_types: ['code', 'code'] }).responseTypes, ['code']);
    refuses(() => validateClientMetadata({ ...mcpClient, response_types: ['code', 'token'] }), 'invalid_client_metadata', /response_types: token is not supported/);
    refuses(() => validateClientMetadata({ ...mcpClient, response_types: [] }), 'invalid_client_metadata', /must not be empty/);
  });
});

describe('client_name, scope, client_uri and logo_uri', () => {
  it('trims client_name and refuses it empty, too long, or with control or text-direction characters', () => {
    assert.equal(validateClientMetadata({ ...mcpClient, client_name: '  Notes  ' }).clientName, 'Notes');
    for (const name of ['', '   ', 'x'.repeat(101), 'Bank\u202Eevil', 'Line\nbreak']) {
      refuses(() => validateClientMetadata({ ...mcpClient, client_name: name }), 'invalid_client_metadata', /^client_name: application name must/);
    }
  });

  it('names a client without client_name after the host of its first redirect URI', () => {
    const { client_name: _, ...unnamed } = mcpClient;
    assert.equal(validateClientMetadata(unnamed).clientName, '127.0.0.1');
    assert.equal(validateClientMetadata({ redirect_uris: ['https://notes.example/cb'] }).clientName, 'notes.example');
    assert.equal(validateClientMetadata({ redirect_uris: ['com.example.notes:/cb'] }).clientName, 'com.example.notes');
  });

  it('asks for a client_name when the fallback host is too long to be a name', () => {
    const host = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
    refuses(() => validateClientMetadata({ redirect_uris: [`https://${host}/cb`] }), 'invalid_client_metadata', /^client_name:/);
  });

  it('defaults scope to read and accepts only scopes Folio supports', () => {
    assert.deepEqual(validateClientMetadata(mcpClient).scope, ['read']);
    assert.deepEqual(validateClientMetadata({ ...mcpClient, scope: ' read  read ' }).scope, ['read']);
    assert.deepEqual(validateClientMetadata({ ...mcpClient, scope: '' }).scope, ['read']);
    refuses(() => validateClientMetadata({ ...mcpClient, scope: 'read write' }), 'invalid_client_metadata', /scope: 'write' is not a scope Folio supports \(supported: read\)/);
  });

  it('keeps client_uri and logo_uri only as https URLs without credentials', () => {
    const metadata = validateClientMetadata({ ...mcpClient, client_uri: 'https://app.example', logo_uri: 'https://app.example/logo.png' });
    assert.equal(metadata.clientUri, 'https://app.example');
    assert.equal(metadata.logoUri, 'https://app.example/logo.png');
    for (const uri of ['http://app.example', 'javascript:alert(1)', 'data:image/png;base64,AAAA', 'https://u:p@app.example/', 'not a url']) {
      refuses(() => validateClientMetadata({ ...mcpClient, logo_uri: uri }), 'invalid_client_metadata', /^logo_uri must be an https URL/);
    }
  });
});
