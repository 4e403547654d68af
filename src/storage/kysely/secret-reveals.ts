import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.ts';
import { SessionEndedError, refusedWhenGone } from '../errors.ts';
import type { SecretReveal } from '../../domain/records.ts';
import type { SecretRevealStore } from '../stores.ts';

/**
 * Holds a secret for its one showing, in the transaction that stores the secret's hash
 * (KyselyApplicationStore): the two are written together or not at all.
 */
export async function holdSecretReveal(trx: Transaction<Database>, reveal: SecretReveal, now: number): Promise<void> {
  // Unread secrets die at expiry; clearing them here keeps the table as small as its use.
  await trx.deleteFrom('secret_reveals').where('expires_at', '<=', now).execute();
  // Of the row's two parents, the application is this transaction's own write: the
  // session is what went, signed out between the page's guard and this write.
  await refusedWhenGone(() => trx.insertInto('secret_reveals')
    .values({
      session_id_hash: reveal.sessionIdHash,
      application_id: reveal.applicationId,
      sealed_secret: reveal.sealedSecret,
      expires_at: reveal.expiresAt,
    })
    .onConflict((conflict) => conflict.columns(['session_id_hash', 'application_id'])
      .doUpdateSet({ sealed_secret: reveal.sealedSecret, expires_at: reveal.expiresAt }))
    .execute(), () => new SessionEndedError());
}

export class KyselySecretRevealStore implements SecretRevealStore {
  constructor(private readonly db: Kysely<Database>) {}

  async takeSecretReveal(sessionIdHash: string, applicationId: number, now: number): Promise<string | undefined> {
    const row = await this.db.deleteFrom('secret_reveals')
      .where('session_id_hash', '=', sessionIdHash)
      .where('application_id', '=', applicationId)
      .returning(['sealed_secret', 'expires_at'])
      .executeTakeFirst();
    return row !== undefined && row.expires_at > now ? row.sealed_secret : undefined;
  }
}
