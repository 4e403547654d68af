import type { OpenDatabase } from '../database.ts';
import { refusedWhenGone } from '../errors.ts';
import type { AuthorizationCode } from '../../domain/records.ts';
import type { AuthorizationCodeRow } from '../schema.ts';
import type { AuthorizationCodeStore } from '../stores.ts';
import { lookingUpTogether } from './batches.ts';
import { columnsOf, everyColumn, fieldsOf, scopeFromColumn, scopeToColumn } from './columns.ts';

const CODE_COLUMNS = everyColumn<AuthorizationCodeRow>()([
  'code_hash', 'grant_id', 'application_id', 'user_id', 'redirect_uri', 'scope', 'code_challenge',
  'created_at', 'expires_at', 'consumed_at', 'resource',
]);

export class KyselyAuthorizationCodeStore implements AuthorizationCodeStore {
  readonly findAuthorizationCode: (codeHash: string) => Promise<AuthorizationCode | undefined>;

  constructor(private readonly database: OpenDatabase) {
    this.findAuthorizationCode = lookingUpTogether(async (hashes) => (await database.db.selectFrom('authorization_codes').select(CODE_COLUMNS)
      .where('code_hash', 'in', hashes).execute()).map((row) => ({ ...fieldsOf(row), scope: scopeFromColumn(row.scope) })), (code) => code.codeHash);
  }

  async saveAuthorizationCode(code: AuthorizationCode): Promise<void> {
    await refusedWhenGone(() => this.database.db.insertInto('authorization_codes')
      .values({ ...columnsOf(code, CODE_COLUMNS), scope: scopeToColumn(code.scope) })
      .execute());
  }
}
