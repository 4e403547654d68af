import type { Pause } from '../../platform/pacer.ts';
import type { OpenDatabase } from '../database.ts';
import type { AccessToken, IssuedTokens, NewAuditEvent, RefreshToken } from '../../domain/records.ts';
import type { TokenStore } from '../stores.ts';
import { recordIfChanged } from './audit.ts';
import { lookingUpTogether } from './batches.ts';
import { changing } from './changing.ts';
import { purgeExpired, yieldToRequests, type PurgeCounts } from './purge.ts';
import { REFRESH_TOKEN_COLUMNS, toToken } from './token-rows.ts';
import { type TokenWrite, tokenWrites } from './token-writes.ts';

export class KyselyTokenStore implements TokenStore {
  private readonly write: (write: TokenWrite) => Promise<boolean>;
  readonly findRefreshToken: (tokenHash: string) => Promise<RefreshToken | undefined>;

  constructor(private readonly database: OpenDatabase) {
    const { db } = database;
    this.write = tokenWrites(database);
    this.findRefreshToken = lookingUpTogether(async (hashes) => (await db.selectFrom('refresh_tokens').select(REFRESH_TOKEN_COLUMNS)
      .where('token_hash', 'in', hashes).execute()).map(toToken), (token) => token.tokenHash);
  }

  saveTokens(tokens: IssuedTokens): Promise<boolean> {
    return this.write({ tokens, now: tokens.access.createdAt });
  }

  // RFC 9700 §4.14.2: exactly one of the requests presenting one refresh token rotates it.
  rotateRefreshToken(previousHash: string, next: IssuedTokens, now: number): Promise<boolean> {
    return this.write({ tokens: next, spends: { credential: 'refreshToken', hash: previousHash }, now });
  }

  // RFC 6749 §4.1.2: exactly one of the requests presenting one code spends it, with its tokens.
  redeemAuthorizationCode(codeHash: string, tokens: IssuedTokens, now: number): Promise<boolean> {
    return this.write({ tokens, spends: { credential: 'authorizationCode', hash: codeHash }, now });
  }

  async findAccessToken(tokenHash: string): Promise<AccessToken | undefined> {
    const row = await this.database.db.selectFrom('access_tokens as a')
      .innerJoin('grants as g', 'g.id', 'a.grant_id')
      .leftJoin('refresh_tokens as r', 'r.token_hash', 'a.refresh_token_hash')
      .select([
        'a.token_hash', 'a.grant_id', 'a.application_id', 'a.user_id', 'a.scope', 'a.created_at', 'a.expires_at',
        (eb) => eb.fn.coalesce('a.revoked_at', 'r.revoked_at').as('revoked_at'), 'a.origin_code_hash', 'a.resource',
      ])
      .where('a.token_hash', '=', tokenHash)
      .where((eb) => eb.or([eb('a.refresh_token_hash', 'is', null), eb('r.token_hash', 'is not', null)]))
      .executeTakeFirst();
    return row && toToken(row);
  }

  revokeAccessToken(tokenHash: string, now: number, event: NewAuditEvent): Promise<boolean> {
    return changing(this.database, ['accessTokens'], async (trx) => recordIfChanged(trx, await trx.updateTable('access_tokens')
      .set({ revoked_at: now })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst(), event));
  }

  purgeExpired(_now: number, olderThan: number, betweenBatches: Pause = yieldToRequests): Promise<PurgeCounts> {
    return purgeExpired(this.database, olderThan, betweenBatches);
  }
}
