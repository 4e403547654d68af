import type { Kysely } from 'kysely';
import type { AuthorizationCode } from '../records.ts';
import type { AuthorizationCodeRow, Database, StorageKind } from '../schema.ts';
import type { AuthorizationCodeStore } from '../stores.ts';
import { scopeFromColumn, scopeToColumn } from './columns.ts';
import { lookingUpByKey } from './lookup-batches.ts';
import { unlessApplicationGone } from '../errors.ts';
import { type PreparedQuery, everyColumn } from './prepared.ts';

const CODE_COLUMNS = everyColumn<AuthorizationCodeRow>()([
  'code_hash', 'grant_id', 'application_id', 'user_id', 'redirect_uri', 'scope', 'code_challenge',
  'created_at', 'expires_at', 'consumed_at',
]);

function toAuthorizationCode(row: AuthorizationCodeRow): AuthorizationCode {
  return {
    codeHash: row.code_hash,
    grantId: row.grant_id,
    applicationId: row.application_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    scope: scopeFromColumn(row.scope),
    codeChallenge: row.code_challenge,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
  };
}

export class KyselyAuthorizationCodeStore implements AuthorizationCodeStore {
  private readonly selectCode: PreparedQuery<AuthorizationCodeRow, [codeHash: string]>;

  constructor(private readonly db: Kysely<Database>, kind: StorageKind) {
    this.selectCode = lookingUpByKey(db, kind, (codeHash) =>
      db.selectFrom('authorization_codes').select(CODE_COLUMNS).where('code_hash', '=', codeHash), (row) => row.code_hash);
  }

  async saveAuthorizationCode(code: AuthorizationCode): Promise<void> {
    await unlessApplicationGone(() => this.db.insertInto('authorization_codes')
      .values({
        code_hash: code.codeHash,
        grant_id: code.grantId,
        application_id: code.applicationId,
        user_id: code.userId,
        redirect_uri: code.redirectUri,
        scope: scopeToColumn(code.scope),
        code_challenge: code.codeChallenge,
        created_at: code.createdAt,
        expires_at: code.expiresAt,
        consumed_at: code.consumedAt,
      })
      .execute());
  }

  async findAuthorizationCode(codeHash: string): Promise<AuthorizationCode | undefined> {
    const [row] = await this.selectCode(codeHash);
    return row && toAuthorizationCode(row);
  }
}
