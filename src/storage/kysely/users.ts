import type { Kysely } from 'kysely';
import { StorageConflictError, toStorageError } from '../errors.ts';
import type { NewAuditEvent, User, UserCredentials } from '../../domain/records.ts';
import type { Database } from '../schema.ts';
import { columnsOf, fieldsOf } from './columns.ts';
import type { UserStore } from '../stores.ts';
import { writeAuditEvent } from './audit.ts';

/** Emails are stored and compared in this form, so uniqueness is case-insensitive. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const USER_COLUMNS = ['id', 'email', 'name', 'created_at'] as const;

export class KyselyUserStore implements UserStore {
  constructor(private readonly db: Kysely<Database>) {}

  async createUser(
    input: { email: string; name: string; passwordHash: string; now: number }, event: (user: User) => NewAuditEvent,
  ): Promise<User> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await trx.insertInto('users')
          .values({ ...columnsOf(input, ['name', 'password_hash']), email: normalizeEmail(input.email), created_at: input.now, updated_at: input.now })
          .returning(USER_COLUMNS)
          .executeTakeFirstOrThrow();
        const user = fieldsOf(row);
        await writeAuditEvent(trx, event(user));
        return user;
      });
    } catch (error) {
      const mapped = toStorageError(error);
      throw mapped instanceof StorageConflictError ? new StorageConflictError('email') : mapped;
    }
  }

  async findUserCredentials(email: string): Promise<UserCredentials | undefined> {
    const row = await this.db.selectFrom('users').select([...USER_COLUMNS, 'password_hash'])
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row && fieldsOf(row);
  }

  async findUserById(id: number): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && fieldsOf(row);
  }

  async hasAnyUser(): Promise<boolean> {
    const row = await this.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async replacePasswordHash(userId: number, passwordHash: string, now: number): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', userId).execute();
  }
}
