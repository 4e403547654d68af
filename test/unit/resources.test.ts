// RFC 8707 resource indicators and RFC 9728 resource metadata: the rules, without HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OAuthError } from '../../src/oauth/errors.ts';
import {
  MAX_RESOURCE_LENGTH, isAudience, narrowResource, protectedResourceMetadata, protectedResources, requestedResource, resourceAt,
} from '../../src/oauth/resources.ts';

const resources = protectedResources('https://folio.example');
const { api, mcp } = resources;

function refusedAsInvalidTarget(fn: () => unknown, description: RegExp): void {
  assert.throws(fn, (error: unknown) => error instanceof OAuthError && error.code === 'invalid_target' && error.status === 400
    && description.test(error.description));
}

describe('the protected resources Folio serves', () => {
  it('names the portfolio API and the MCP server with their RFC 9728 metadata addresses', () => {
    assert.equal(api.uri, 'https://folio.example/api/v2');
    assert.equal(api.metadataUrl, 'https://folio.example/.well-known/oauth-protected-resource/api/v2');
    assert.equal(mcp.uri, 'https://folio.example/mcp');
    assert.equal(mcp.metadataPath, '/.well-known/oauth-protected-resource/mcp');
    assert.deepEqual([api.scopes, mcp.scopes], [['read'], ['read']]);
  });

  it('builds RFC 9728 §2 metadata naming Folio as the authorization server', () => {
    assert.deepEqual(protectedResourceMetadata(mcp, 'https://folio.example', 'https://folio.example/developers'), {
      resource: 'https://folio.example/mcp',
      authorization_servers: ['https://folio.example'],
      scopes_supported: ['read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Folio MCP server',
      resource_documentation: 'https://folio.example/developers',
    });
  });
});

describe('RFC 8707 §2 requestedResource', () => {
  it('is null when the request names no resource', () => {
    assert.equal(requestedResource(undefined, false, resources), null);
  });

  it('accepts each served resource exactly as Folio spells it', () => {
    assert.equal(requestedResource('https://folio.example/mcp', false, resources), mcp.uri);
    assert.equal(requestedResource('https://folio.example/api/v2', false, resources), api.uri);
  });

  it('accepts what RFC 3986 §6.2.2 and §6.2.3 make equivalent: scheme and host case, default port, percent-encoding', () => {
    for (const equivalent of ['HTTPS://Folio.Example/mcp', 'https://folio.example:443/mcp', 'https://folio.example/%6Dcp', 'https://folio.example:/mcp']) {
      assert.equal(requestedResource(equivalent, false, resources), mcp.uri, equivalent);
    }
  });

  it('refuses other spellings of the path, other hosts, ports, schemes, queries and user information', () => {
    for (const other of [
      'https://folio.example/mcp/', 'https://folio.example/MCP', 'https://folio.example/api/v2/../../mcp', 'https://folio.example',
      'https://folio.example:8443/mcp', 'http://folio.example/mcp', 'https://evil.example/mcp', 'https://folio.example/mcp?x=1',
      'https://user@folio.example/mcp', 'https:folio.example/mcp', 'urn:folio:mcp',
    ]) {
      refusedAsInvalidTarget(() => requestedResource(other, false, resources), /one Folio serves: https:\/\/folio.example\/api\/v2 or https:\/\/folio.example\/mcp/);
    }
  });

  it('refuses what is not an absolute URI', () => {
    for (const bad of ['', 'folio.example/mcp', '/mcp', 'https://folio.example/m cp', 'https://folio.example/\u00e9', 'https://folio.example/%zz', 'https://folio.example\\mcp']) {
      refusedAsInvalidTarget(() => requestedResource(bad, false, resources), /absolute URI/);
    }
  });

  it('refuses a fragment', () => {
    refusedAsInvalidTarget(() => requestedResource('https://folio.example/mcp#part', false, resources), /fragment/);
  });

  it('refuses an oversized value before parsing it', () => {
    refusedAsInvalidTarget(() => requestedResource(`https://folio.example/${'a'.repeat(MAX_RESOURCE_LENGTH)}`, false, resources), /at most 2048/);
  });

  it('refuses resource given more than once: a token is for one resource', () => {
    refusedAsInvalidTarget(() => requestedResource(mcp.uri, true, resources), /one resource/);
  });
});

describe('RFC 8707 §2.2 narrowResource at the token endpoint', () => {
  it('keeps the granted resource when the request names none', () => {
    assert.equal(narrowResource(null, mcp.uri, resources), mcp.uri);
    assert.equal(narrowResource(null, null, resources), null);
  });

  it('accepts the granted resource named again', () => {
    assert.equal(narrowResource(mcp.uri, mcp.uri, resources), mcp.uri);
    assert.equal(narrowResource(api.uri, api.uri, resources), api.uri);
  });

  it('narrows a grant without a resource to the portfolio API, its only audience', () => {
    assert.equal(narrowResource(api.uri, null, resources), api.uri);
  });

  it('never widens a grant without a resource to the MCP server', () => {
    refusedAsInvalidTarget(() => narrowResource(mcp.uri, null, resources), /granted for/);
  });

  it('never moves a grant from one resource to the other', () => {
    refusedAsInvalidTarget(() => narrowResource(api.uri, mcp.uri, resources), /granted for/);
    refusedAsInvalidTarget(() => narrowResource(mcp.uri, api.uri, resources), /granted for/);
  });
});

describe('isAudience: which tokens a resource accepts', () => {
  it('the portfolio API accepts its own tokens and those issued without a resource', () => {
    assert.equal(isAudience(api, api.uri), true);
    assert.equal(isAudience(api, null), true);
    assert.equal(isAudience(api, mcp.uri), false);
  });

  it('the MCP server accepts only tokens issued for it', () => {
    assert.equal(isAudience(mcp, mcp.uri), true);
    assert.equal(isAudience(mcp, null), false);
    assert.equal(isAudience(mcp, api.uri), false);
  });

  it('resourceAt finds the resource a token is bound to, the API for none', () => {
    assert.equal(resourceAt(resources, mcp.uri), mcp);
    assert.equal(resourceAt(resources, null), api);
  });
});
