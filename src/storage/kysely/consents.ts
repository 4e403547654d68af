import type { Kysely } from 'kysely';
import type { OpenDatabase } from '../database.ts';
import type { Consent, NewAuditEvent } from '../../domain/records.ts';
import type { Database } from '../schema.ts';
import { type ConsentStore } from '../stores.ts';
import { writeAuditEvent } from './audit.ts';
import { fieldsOf, scopeFromColumn, scopeToColumn } from './columns.ts';
import { ApplicationGoneError, refusedWhenGone } from '../errors.ts';

/** Forgets the user's consent to the application, on `executor`: the database or a transaction. */
export async function forgetConsentWith(executor: Kysely<Database>, userId: number, applicationId: number): Promise<void> {
  await executor.deleteFrom('consents')
    .where('user_id', '=', userId)
    .where('application_id', '=', applicationId)
    .execute();
}

export class KyselyConsentStore implements ConsentStore {
  constructor(private readonly database: OpenDatabase) {}

  async findConsent(userId: number, applicationId: number): Promise<Consent | undefined> {
    const row = await this.database.db.selectFrom('consents').select(['user_id', 'application_id', 'scope', 'created_at'])
      .where('user_id', '=', userId)
      .where('application_id', '=', applicationId)
      .executeTakeFirst();
    return row && { ...fieldsOf(row), scope: scopeFromColumn(row.scope) };
  }

  async rememberConsent(userId: number, applicationId: number, scope: string[], now: number, event: NewAuditEvent): Promise<void> {
    const values = { user_id: userId, application_id: applicationId, scope: scopeToColumn(scope), created_at: now };
    await refusedWhenGone(() => this.database.db.transaction().execute(async (trx) => {
      await trx.insertInto('consents')
        .values(values)
        .onConflict((conflict) => conflict.columns(['user_id', 'application_id'])
          .doUpdateSet({ scope: values.scope, created_at: values.created_at }))
        .execute();
      await writeAuditEvent(trx, event);
    }));
  }

  async forgetConsent(userId: number, applicationId: number, event: NewAuditEvent): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      // The denial is sent to the application's redirect URI, which must still be
      // registered (RFC 6749 §4.1.2.1). A deletion waits for this transaction: on
      // PostgreSQL for the key-share lock, on SQLite for the write lock that every
      // transaction takes as it begins.
      const application = trx.selectFrom('applications').select('id').where('id', '=', applicationId);
      if (await (this.database.kind === 'postgres' ? application.forKeyShare() : application).executeTakeFirst() === undefined) {
        throw new ApplicationGoneError();
      }
      await forgetConsentWith(trx, userId, applicationId);
      await writeAuditEvent(trx, event);
    });
  }
}
