// RFC 8707: codes and tokens keep the resource they are for through every write
// and look-up (migration 0015), and those from before the migration have none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { OpenDatabase } from '../../src/storage/database.ts';
import { createStorage } from '../../src/storage/kysely/storage.ts';
import { migrateToLatest, migrateUpTo } from '../../src/storage/migrations/provider.ts';
import type { StorageKind } from '../../src/storage/schema.ts';
import { describeStorageContract, forEachEmptyDatabase } from './contract.ts';
import { T0, MINUTE, accessTokenFor, codeFor, createGrant, refreshTokenFor } from './fixtures.ts';
import { grantFromBefore } from './rows-from-before.ts';

const MCP = 'https://folio.example/mcp';
const API = 'https://folio.example/api/v2';

describeStorageContract('the resource of codes and tokens', (target) => {
  it('keeps the resource of a code, and null for a code without one', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const bound = { ...codeFor(grant), resource: MCP };
    const unbound = codeFor(grant);
    await storage.codes.saveAuthorizationCode(bound);
    await storage.codes.saveAuthorizationCode(unbound);
    assert.equal((await storage.codes.findAuthorizationCode(bound.codeHash))?.resource, MCP);
    assert.equal((await storage.codes.findAuthorizationCode(unbound.codeHash))?.resource, null);
  });

  it('keeps each token of a redeemed code with its own resource', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const code = codeFor(grant);
    await storage.codes.saveAuthorizationCode(code);
    const tokens = { access: { ...accessTokenFor(grant), resource: API }, refresh: refreshTokenFor(grant) };
    assert.equal(await storage.tokens.redeemAuthorizationCode(code.codeHash, tokens, T0 + MINUTE), true);
    assert.equal((await storage.tokens.findAccessToken(tokens.access.tokenHash))?.resource, API);
    assert.equal((await storage.tokens.findRefreshToken(tokens.refresh.tokenHash))?.resource, null);
  });

  it('keeps the resources of a rotation and of a token issued alone', async () => {
    const { storage } = target();
    const { grant } = await createGrant(storage);
    const first = { access: { ...accessTokenFor(grant), resource: MCP }, refresh: { ...refreshTokenFor(grant), resource: MCP } };
    await storage.tokens.saveTokens(first);
    const next = { access: { ...accessTokenFor(grant), resource: MCP }, refresh: { ...refreshTokenFor(grant), resource: MCP } };
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh.tokenHash, next, T0 + MINUTE), true);
    assert.deepEqual(await storage.tokens.findAccessToken(next.access.tokenHash), next.access);
    assert.deepEqual(await storage.tokens.findRefreshToken(next.refresh.tokenHash), next.refresh);
    const alone = { ...accessTokenFor(grant), resource: API };
    await storage.tokens.saveTokens({ access: alone });
    assert.deepEqual(await storage.tokens.findAccessToken(alone.tokenHash), alone);
  });
});

function describeOn(kind: StorageKind, openDatabase: () => Promise<OpenDatabase>) {
  describe(`migration 0015 on codes and tokens from before it (${kind})`, () => {
    it('leaves them bound to no resource', async () => {
      const database = await openDatabase();
      try {
        await migrateUpTo(database.db, kind, '0014-trusted-devices-and-native-codes');
        const storage = createStorage(database);
        const { grant } = await grantFromBefore(database.db);
        const token = accessTokenFor(grant);
        const code = codeFor(grant);
        await sql`insert into access_tokens (token_hash, grant_id, application_id, user_id, scope, created_at, expires_at)
          values (${token.tokenHash}, ${grant.id}, ${grant.applicationId}, ${grant.userId}, 'read', ${token.createdAt}, ${token.expiresAt})`.execute(database.db);
        await sql`insert into authorization_codes (code_hash, grant_id, application_id, user_id, redirect_uri, scope, created_at, expires_at)
          values (${code.codeHash}, ${grant.id}, ${grant.applicationId}, ${grant.userId}, ${code.redirectUri}, 'read', ${code.createdAt}, ${code.expiresAt})`.execute(database.db);
        await migrateToLatest(database.db, kind);
        assert.equal((await storage.tokens.findAccessToken(token.tokenHash))?.resource, null);
        assert.equal((await storage.codes.findAuthorizationCode(code.codeHash))?.resource, null);
      } finally {
        await database.db.destroy();
      }
    });
  });
}

forEachEmptyDatabase(describeOn);
