// On PostgreSQL a refresh token's rotation and a code's redemption update their
// row once each, and migration 0012 leaves room on the row's page for that update,
// so that it is written beside the row (a heap-only tuple, no index entries) and
// not on another page with an entry in every index. Checked by where the row's
// new version is: on its own page. Without the migration, the first row of a page
// filled by the rows saved after it moves to another page.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/schema.ts';
import { migratedPostgresOfItsOwn, withoutPostgres } from './contract.ts';
import { MINUTE, T0, codeFor, createGrant, tokenPairFor } from './fixtures.ts';

/** More rows than a page of either table holds at the default fillfactor. */
const ROWS_AFTER = 60;

/** The page (block number) the row's current version is on. */
async function pageOf(db: Kysely<Database>, table: 'refresh_tokens' | 'authorization_codes', key: 'token_hash' | 'code_hash', hash: string): Promise<string> {
  const { rows } = await sql<{ page: string }>`select (ctid::text::point)[0]::bigint::text as page from ${sql.table(table)} where ${sql.ref(key)} = ${hash}`.execute(db);
  assert.equal(rows.length, 1);
  return rows[0]!.page;
}

describe('rotations and redemptions written beside their row on PostgreSQL', { skip: withoutPostgres }, () => {
  const target = migratedPostgresOfItsOwn();

  it('rotates a refresh token on its own page', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = tokenPairFor(grant, T0);
    await storage.tokens.saveTokens(first);
    for (let index = 0; index < ROWS_AFTER; index++) await storage.tokens.saveTokens(tokenPairFor(grant, T0));
    const page = await pageOf(db, 'refresh_tokens', 'token_hash', first.refresh!.tokenHash);
    assert.equal(await storage.tokens.rotateRefreshToken(first.refresh!.tokenHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE), true);
    assert.equal(await pageOf(db, 'refresh_tokens', 'token_hash', first.refresh!.tokenHash), page);
  });

  it('redeems a code on its own page', async () => {
    const { storage, db } = target();
    const { grant } = await createGrant(storage);
    const first = codeFor(grant, undefined, T0);
    await storage.codes.saveAuthorizationCode(first);
    for (let index = 0; index < ROWS_AFTER; index++) await storage.codes.saveAuthorizationCode(codeFor(grant, undefined, T0));
    const page = await pageOf(db, 'authorization_codes', 'code_hash', first.codeHash);
    assert.equal(await storage.tokens.redeemAuthorizationCode(first.codeHash, tokenPairFor(grant, T0 + MINUTE), T0 + MINUTE), true);
    assert.equal(await pageOf(db, 'authorization_codes', 'code_hash', first.codeHash), page);
  });
});
