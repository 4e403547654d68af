import type { Kysely } from 'kysely';
import type { AuthorizationCode } from '../records.ts';
import type { AuthorizationCodeRow, Database } from '../schema.ts';
import type { AuthorizationCodeStore, CodeConsumption } from '../stores.ts';
import { scopeFromColumn, scopeToColumn } from './columns.ts';
import { type PreparedQuery, type PreparedStatement, everyColumn, prepared, preparedStatement } from './prepared.ts';
import { type RunStatement, directStatements } from './transactions.ts';

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
  private readonly consumeCode: PreparedStatement<[codeHash: string, consumedAt: number], AuthorizationCodeRow>;

  /**
   * On SQLite the redemption joins the group commit: an UPDATE on its own is a
   * commit and an fsync of its own, which every code exchange paid beside the
   * one its tokens share with other writes.
   */
  constructor(private readonly db: Kysely<Database>, private readonly runStatement: RunStatement = directStatements(db)) {
    this.selectCode = prepared(db, (codeHash: string) =>
    db.selectFrom('authorization_codes').select(CODE_COLUMNS).where('code_hash', '=', codeHash));
    this.consumeCode = preparedStatement((codeHash: string, consumedAt: number) => db.updateTable('authorization_codes')
      .set({ consumed_at: consumedAt })
      .where('code_hash', '=', codeHash)
      .where('consumed_at', 'is', null)
      .returning(CODE_COLUMNS));
  }

  async saveAuthorizationCode(code: AuthorizationCode): Promise<void> {
    await this.db.insertInto('authorization_codes')
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
      .execute();
  }

  async findAuthorizationCode(codeHash: string): Promise<AuthorizationCode | undefined> {
    const [row] = await this.selectCode(codeHash);
    return row && toAuthorizationCode(row);
  }

  // RFC 6749 §4.1.2: a code is single use. The conditional UPDATE is the whole decision,
  // so concurrent redemptions (even across instances) see exactly one 'consumed'.
  // Expiry is the caller's call: it compares expiresAt with its clock.
  async consumeAuthorizationCode(codeHash: string, now: number): Promise<CodeConsumption> {
    const { rows: [consumed] } = await this.runStatement((runner) => this.consumeCode(runner, codeHash, now));
    if (consumed) return { outcome: 'consumed', code: toAuthorizationCode(consumed) };

    const [existing] = await this.selectCode(codeHash);
    return existing ? { outcome: 'already_consumed', code: toAuthorizationCode(existing) } : { outcome: 'not_found' };
  }
}
