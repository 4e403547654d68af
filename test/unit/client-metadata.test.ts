import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clientIdUrlProblem, isClientIdMetadataUrl, validateClientIdUrl, validateMetadataDocument,
} from '../../src/oauth/client-id-metadata-document.ts';
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

  it('accepts https and loopback http, dropping duplicates', () => {
    const uris = ['https://app.example/cb', 'http://[::1]/cb', 'https://app.example/cb'];
    assert.deepEqual(validateClientMetadata({ ...mcpClient, redirect_uris: uris }).redirectUris, uris.slice(0, 2));
  });

  it('refuses private-use schemes, which any app on a device may claim', () => {
    refuses(withUris(['com.example.app:/oauth2redirect']), 'invalid_redirect_uri', /only https or loopback http/);
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

describe('Client ID Metadata Document URLs (draft-ietf-oauth-client-id-metadata-document, "Client Identifier")', () => {
  it('treats a client_id as a metadata document URL when it starts with https://', () => {
    assert.equal(isClientIdMetadataUrl('https://app.example/client.json'), true);
    assert.equal(isClientIdMetadataUrl('HTTPS://app.example/client.json'), true);
    for (const clientId of ['uJq3x9k2MZbQ0v1rN8yT4w', 'http://app.example/client.json', 'https:app.example', '']) {
      assert.equal(isClientIdMetadataUrl(clientId), false, clientId);
    }
  });

  it('accepts an https URL with a path, a port or a query', () => {
    for (const url of ['https://app.example/client.json', 'https://app.example:8443/oauth/client', 'https://app.example/client?v=2', 'https://203.0.113.7/c']) {
      assert.equal(clientIdUrlProblem(url), null, url);
    }
    assert.equal(validateClientIdUrl('https://app.example/client.json').hostname, 'app.example');
  });

  it('refuses URLs the draft forbids, saying why', () => {
    const refused: Record<string, RegExp> = {
      'http://app.example/client.json': /https/,
      'https://user:pw@app.example/client.json': /username or password/,
      'https://app.example/client.json#x': /fragment/,
      'https://app.example/client.json#': /fragment/,
      'https://app.example/a/../client.json': /\. or \.\. path segments/,
      'https://app.example/./client.json': /\. or \.\. path segments/,
      'https://app.example/%2E%2e/client.json': /\. or \.\. path segments/,
      'https://app.example/': /must have a path/,
      'https://app.example': /must have a path/,
      'app.example/client.json': /absolute URL/,
      [`https://app.example/${'c'.repeat(250)}`]: /at most 256 characters/,
    };
    for (const [url, reason] of Object.entries(refused)) {
      assert.match(clientIdUrlProblem(url) ?? 'accepted', reason, url);
    }
  });

  it('refuses a URL not written in normal form, so each client has one spelling', () => {
    assert.match(clientIdUrlProblem('https://App.Example/client.json')!, /normal form: https:\/\/app\.example\/client\.json/);
    assert.match(clientIdUrlProblem('https://app.example:443/client.json')!, /normal form/);
    assert.match(clientIdUrlProblem('https://bücher.example/client.json')!, /normal form: https:\/\/xn--bcher-kva\.example/);
  });

  it('reports a bad client_id URL as invalid_client', () => {
    assert.throws(() => validateClientIdUrl('https://app.example/'), (error: unknown) =>
      error instanceof OAuthError && error.code === 'invalid_client' && /A client_id URL must have a path/.test(error.description));
  });
});

describe('Client ID Metadata Documents ("Client Metadata Document")', () => {
  const url = 'https://app.example/oauth/client-metadata.json';
  const document = { client_id: url, ...mcpClient };

  it('accepts the MCP example document as a public client', () => {
    const metadata = validateMetadataDocument(url, { ...document, client_uri: 'https://app.example', logo_uri: 'https://app.example/logo.png' });
    assert.equal(metadata.clientName, 'Example MCP Client');
    assert.equal(metadata.confidential, false);
    assert.equal(metadata.tokenEndpointAuthMethod, 'none');
    assert.deepEqual(metadata.redirectUris, mcpClient.redirect_uris);
  });

  it('reads an absent token_endpoint_auth_method as none', () => {
    const { token_endpoint_auth_method: _, ...withoutMethod } = document;
    assert.equal(validateMetadataDocument(url, withoutMethod).tokenEndpointAuthMethod, 'none');
  });

  it('names a document without client_name after its own host', () => {
    const { client_name: _, ...unnamed } = document;
    assert.equal(validateMetadataDocument(url, unnamed).clientName, 'app.example');
  });

  it('requires client_id to equal the URL character for character', () => {
    for (const clientId of [undefined, 7, 'https://app.example/oauth/client-metadata.json/', 'https://APP.example/oauth/client-metadata.json', 'https://other.example/oauth/client-metadata.json']) {
      refuses(() => validateMetadataDocument(url, { ...document, client_id: clientId }), 'invalid_client_metadata', /client_id in the metadata document must equal the URL/);
    }
  });

  it('refuses shared-secret methods and private_key_jwt', () => {
    for (const method of ['client_secret_basic', 'client_secret_post']) {
      refuses(() => validateMetadataDocument(url, { ...document, token_endpoint_auth_method: method }), 'invalid_client_metadata', /needs a shared secret.*use none/);
    }
    refuses(() => validateMetadataDocument(url, { ...document, token_endpoint_auth_method: 'private_key_jwt' }), 'invalid_client_metadata', /private_key_jwt is not supported by Folio/);
  });

  it('refuses a document that carries client_secret or client_secret_expires_at', () => {
    refuses(() => validateMetadataDocument(url, { ...document, client_secret: 's3cret' }), 'invalid_client_metadata', /client_secret must not appear/);
    refuses(() => validateMetadataDocument(url, { ...document, client_secret_expires_at: 0 }), 'invalid_client_metadata', /client_secret_expires_at must not appear/);
  });

  it('applies every rule of registration to the document', () => {
    refuses(() => validateMetadataDocument(url, { ...document, redirect_uris: ['urn:ietf:wg:oauth:2.0:oob'] }), 'invalid_redirect_uri', /out-of-band|oob/);
    refuses(() => validateMetadataDocument(url, { ...document, grant_types: ['client_credentials'] }), 'invalid_client_metadata', /client_credentials/);
    refuses(() => validateMetadataDocument(url, []), 'invalid_client_metadata', /JSON object/);
  });

  it('refuses a document fetched from a URL that cannot be a client_id', () => {
    assert.throws(() => validateMetadataDocument('https://app.example/', { ...document, client_id: 'https://app.example/' }),
      (error: unknown) => error instanceof OAuthError && error.code === 'invalid_client');
  });
});
