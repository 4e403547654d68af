import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import type { SecretReveal, SecretRevealStore } from '../stores.ts';

export class KyselySecretRevealStore implements SecretRevealStore {
  constructor(private readonly db: Kysely<Database>) {}

  async holdSecretReveal(reveal: SecretReveal, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Unread secrets die at expiry; clearing them here keeps the table as small as its use.
      await trx.deleteFrom('secret_reveals').where('expires_at', '<=', now).execute();
      await trx.insertInto('secret_reveals')
        .values({
          session_id_hash: reveal.sessionIdHash,
          application_id: reveal.applicationId,
          sealed_secret: reveal.sealedSecret,
          expires_at: reveal.expiresAt,
        })
        .onConflict((conflict) => conflict.columns(['session_id_hash', 'application_id'])
          .doUpdateSet({ sealed_secret: reveal.sealedSecret, expires_at: reveal.expiresAt }))
        .execute();
    });
  }

  async takeSecretReveal(sessionIdHash: string, applicationId: number, now: number): Promise<string | undefined> {
    const row = await this.db.deleteFrom('secret_reveals')
      .where('session_id_hash', '=', sessionIdHash)
      .where('application_id', '=', applicationId)
      .returning(['sealed_secret', 'expires_at'])
      .executeTakeFirst();
    return row !== undefined && row.expires_at > now ? row.sealed_secret : undefined;
  }
}
