import type { Kysely } from 'kysely';
import type { NewAuditEvent, Session } from '../records.ts';
import type { Database } from '../schema.ts';
import type { SessionStore } from '../stores.ts';
import { changedRows } from './columns.ts';
import { recordIfChanged, writeAuditEvent } from './audit.ts';

export class KyselySessionStore implements SessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async createSession(session: Session, event?: NewAuditEvent): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('sessions')
        .values({
          id_hash: session.idHash,
          user_id: session.userId,
          csrf_token: session.csrfToken,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
          expires_at: session.expiresAt,
        })
        .execute();
      if (event !== undefined) await writeAuditEvent(trx, event);
    });
  }

  async findSession(idHash: string): Promise<Session | undefined> {
    const row = await this.db.selectFrom('sessions')
      .select(['id_hash', 'user_id', 'csrf_token', 'created_at', 'last_seen_at', 'expires_at'])
      .where('id_hash', '=', idHash).executeTakeFirst();
    return row && {
      idHash: row.id_hash,
      userId: row.user_id,
      csrfToken: row.csrf_token,
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at,
      expiresAt: row.expires_at,
    };
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
}
