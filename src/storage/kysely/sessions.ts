import type { Kysely } from 'kysely';
import type { Session } from '../records.ts';
import type { Database } from '../schema.ts';
import type { SessionStore } from '../stores.ts';

export class KyselySessionStore implements SessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async createSession(session: Session): Promise<void> {
    await this.db.insertInto('sessions')
      .values({
        id_hash: session.idHash,
        user_id: session.userId,
        csrf_token: session.csrfToken,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async findSession(idHash: string): Promise<Session | undefined> {
    const row = await this.db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
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

  async deleteSession(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }
}
