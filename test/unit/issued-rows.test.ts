import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessToken, NewAuditEvent, RefreshToken } from '../../src/storage/records.ts';
import type { IssuedTokens } from '../../src/storage/stores.ts';
import { AUDIT_EVENT_COLUMNS } from '../../src/storage/kysely/audit.ts';
import { issuedRows } from '../../src/storage/kysely/issue-sql-postgres.ts';
import { ACCESS_TOKEN_COLUMNS, REFRESH_TOKEN_COLUMNS } from '../../src/storage/kysely/tokens.ts';

const NOW = 1_764_000_000_123;

function accessToken(tokenHash: string, originCodeHash: string | null): AccessToken {
  return {
    tokenHash, grantId: 7, applicationId: 3, userId: 11, scope: ['portfolios:read', 'transactions:read'],
    createdAt: NOW, expiresAt: NOW + 3_600_000, revokedAt: null, originCodeHash,
  };
}

function refreshToken(tokenHash: string): RefreshToken {
  return { ...accessToken(tokenHash, 'code-hash'), expiresAt: NOW + 90 * 86_400_000, rotatedAt: null };
}

// A detail with what JSON must escape, and an event with no user or ip.
const EVENT: NewAuditEvent = {
  type: 'token.issued', userId: null, applicationId: 3, ip: null,
  detail: { clientId: 'say "hi"\\', note: 'tab\there caf\u00e9 \u2028 \u{1f600}', grantId: 7 }, createdAt: NOW,
};

describe('issuedRows', () => {
  test("writes each row with the columns' values, leaving out what an issue lacks", () => {
    const issues: IssuedTokens[] = [
      { access: accessToken('a1', null), event: EVENT },
      { access: accessToken('a2', 'code-hash'), refresh: refreshToken('r2') },
    ];
    const [access, refresh, event] = issuedRows(issues).map((text) => JSON.parse(text) as unknown);
    const tokenRow = (token: AccessToken) => ({
      token_hash: token.tokenHash, grant_id: 7, application_id: 3, user_id: 11, scope: 'portfolios:read transactions:read',
      created_at: NOW, expires_at: NOW + 3_600_000, revoked_at: null, origin_code_hash: token.originCodeHash,
    });
    // Each access token is bound to the refresh token issued beside it, if any (migration 0010).
    assert.deepEqual(access, [
      { ...tokenRow(issues[0]!.access), refresh_token_hash: null },
      { ...tokenRow(issues[1]!.access), refresh_token_hash: 'r2' },
    ]);
    assert.deepEqual(refresh, [{ ...tokenRow(issues[1]!.refresh!), expires_at: NOW + 90 * 86_400_000, rotated_at: null }]);
    assert.deepEqual(event, [{
      type: 'token.issued', user_id: null, application_id: 3, ip: null, detail: JSON.stringify(EVENT.detail), created_at: NOW,
    }]);
  });

  test('gives each row of an exchange the hash it spends, and an empty batch empty arrays', () => {
    const issues: IssuedTokens[] = [{ access: accessToken('a1', 'code-hash'), refresh: refreshToken('r1'), event: EVENT }];
    const rows = issuedRows(issues, ['spent-hash']).map((text) => JSON.parse(text) as Record<string, unknown>[]);
    for (const table of rows) assert.deepEqual(table.map((row) => row.spends), ['spent-hash']);
    assert.deepEqual(issuedRows([]), ['[]', '[]', '[]']);
  });

  test("writes every column of each table, a column added to one included", () => {
    const issues: IssuedTokens[] = [{ access: accessToken('a1', 'code-hash'), refresh: refreshToken('r1'), event: EVENT }];
    const memberNames = (text: string) => (JSON.parse(text) as Record<string, unknown>[]).map((row) => Object.keys(row));
    const [access, refresh, event] = issuedRows(issues).map(memberNames);
    assert.deepEqual(access, [[...ACCESS_TOKEN_COLUMNS]]);
    assert.deepEqual(refresh, [[...REFRESH_TOKEN_COLUMNS]]);
    assert.deepEqual(event, [[...AUDIT_EVENT_COLUMNS]]);
    const inExchange = issuedRows(issues, ['spent-hash']).map(memberNames);
    assert.deepEqual(inExchange, [[[...ACCESS_TOKEN_COLUMNS, 'spends']], [[...REFRESH_TOKEN_COLUMNS, 'spends']], [[...AUDIT_EVENT_COLUMNS, 'spends']]]);
  });

  test('escapes any string member that JSON needs escaped, not only the detail', () => {
    const hostile = 'a"b\\c\u0000d\u2028e';
    const [access] = issuedRows([{ access: { ...accessToken(hostile, hostile), scope: [hostile] } }]);
    const [row] = JSON.parse(access) as Record<string, unknown>[];
    assert.deepEqual([row!.token_hash, row!.origin_code_hash, row!.scope], [hostile, hostile, hostile]);
  });

  test('writes the text JSON.stringify writes for the same rows', () => {
    const [access] = issuedRows([{ access: accessToken('a1', null) }]);
    assert.equal(access, JSON.stringify([{
      token_hash: 'a1', grant_id: 7, application_id: 3, user_id: 11, scope: 'portfolios:read transactions:read',
      created_at: NOW, expires_at: NOW + 3_600_000, revoked_at: null, origin_code_hash: null, refresh_token_hash: null,
    }]));
  });
});
