import type { Kysely } from 'kysely';
import type { NewAuditEvent, Session } from '../../domain/records.ts';
import type { Database, StorageKind } from '../schema.ts';
import type { SessionStore } from '../stores.ts';
import { changedRows, columnsOf, fieldsOf } from './columns.ts';
import { recordIfChanged, writeAuditEvent } from './audit.ts';

/** A Session record's columns; the out-of-band code is held and taken apart. */
const SESSION_COLUMNS = ['id_hash', 'user_id', 'csrf_token', 'created_at', 'last_seen_at', 'expires_at'] as const;

export class KyselySessionStore implements SessionStore {
  constructor(private readonly db: Kysely<Database>, private readonly kind: StorageKind) {}

  async createSession(session: Session, event?: NewAuditEvent): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('sessions').values(columnsOf(session, SESSION_COLUMNS)).execute();
      if (event !== undefined) await writeAuditEvent(trx, event);
    });
  }

  async findSession(idHash: string): Promise<Session | undefined> {
    const row = await this.db.selectFrom('sessions').select(SESSION_COLUMNS).where('id_hash', '=', idHash).executeTakeFirst();
    return row && fieldsOf(row);
  }

  async touchSession(idHash: string, now: number): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
  }

  async deleteSession(idHash: string, event?: NewAuditEvent): Promise<boolean> {
    if (event === undefined) {
      return changedRows(await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).executeTakeFirst()) > 0;
    }
    return this.db.transaction().execute(async (trx) =>
      recordIfChanged(trx, await trx.deleteFrom('sessions').where('id_hash', '=', idHash).executeTakeFirst(), event));
  }

  async holdNativeCode(idHash: string, sealedCode: string, expiresAt: number): Promise<void> {
    await this.db.updateTable('sessions').set({ native_code: sealedCode, native_code_expires_at: expiresAt }).where('id_hash', '=', idHash).execute();
  }

  // Read and cleared in one transaction, the row locked on PostgreSQL: two pages loaded at once show the code once.
  takeNativeCode(idHash: string, now: number): Promise<string | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('sessions').select(['native_code', 'native_code_expires_at'])
        .where('id_hash', '=', idHash).where('native_code', 'is not', null)
        .$if(this.kind === 'postgres', (query) => query.forUpdate())
        .executeTakeFirst();
      if (row === undefined) return undefined;
      await trx.updateTable('sessions').set({ native_code: null, native_code_expires_at: null }).where('id_hash', '=', idHash).execute();
      return (row.native_code_expires_at ?? 0) > now ? row.native_code ?? undefined : undefined;
    });
  }
}
