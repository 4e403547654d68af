import { sql } from 'kysely';
import type { Pause } from '../../platform/pacer.ts';
import type { OpenDatabase } from '../database.ts';
import type { CountedAttempt } from '../../domain/records.ts';
import type { LockoutPolicy, LoginThrottleStore } from '../stores.ts';
import { deleteInBatches, yieldToRequests } from './purge.ts';

export class KyselyLoginThrottleStore implements LoginThrottleStore {
  constructor(private readonly database: OpenDatabase) {}

  // One upsert increments, so concurrent attempts never overwrite each other's count, and
  // a lock in force leaves the row as it is. On PostgreSQL its row lock is held until the
  // lock below is written, so a concurrent attempt sees it; SQLite runs one at a time.
  async countAttempt(key: string, now: number, policy: LockoutPolicy): Promise<CountedAttempt> {
    return this.database.db.transaction().execute(async (trx) => {
      const inForce = sql<boolean>`(login_failures.locked_until is not null and login_failures.locked_until > ${now})`;
      const forgotten = sql<boolean>`(login_failures.updated_at <= ${now - policy.forgetAfterMs} and not ${inForce})`;
      const counted = await trx.insertInto('login_failures')
        .values({ key, failures: 1, locked_until: null, updated_at: now })
        .onConflict((conflict) => conflict.column('key').doUpdateSet({
          failures: sql<number>`case when ${inForce} then login_failures.failures when ${forgotten} then 1 else login_failures.failures + 1 end`,
          locked_until: sql<number | null>`case when ${forgotten} then null else login_failures.locked_until end`,
          updated_at: sql<number>`case when ${inForce} then login_failures.updated_at else ${now} end`,
        }))
        .returning(['failures', 'locked_until'])
        .executeTakeFirstOrThrow();
      const failures = Number(counted.failures);
      const previousLockedUntil = counted.locked_until === null ? null : Number(counted.locked_until);
      if (previousLockedUntil !== null && previousLockedUntil > now) {
        return { allowed: false, failures, lockedUntil: previousLockedUntil, previousLockedUntil };
      }
      const lockMs = policy.lockoutMs(failures);
      if (lockMs <= 0) return { allowed: true, failures, lockedUntil: null, previousLockedUntil };
      const lockedUntil = now + lockMs;
      await trx.updateTable('login_failures').set({ locked_until: lockedUntil }).where('key', '=', key).execute();
      return { allowed: true, failures, lockedUntil, previousLockedUntil };
    });
  }

  async forgiveAttempt(key: string, attempt: CountedAttempt): Promise<void> {
    if (!attempt.allowed) return;
    const setByThisAttempt = attempt.lockedUntil;
    await this.database.db.updateTable('login_failures')
      .set({
        failures: sql<number>`login_failures.failures - 1`,
        ...(setByThisAttempt === null ? {} : {
          locked_until: sql<number | null>`case when login_failures.locked_until = ${setByThisAttempt} then ${attempt.previousLockedUntil} else login_failures.locked_until end`,
        }),
      })
      .where('key', '=', key)
      .where('failures', '>', 0)
      .execute();
  }

  async lockedUntil(key: string, now: number): Promise<number | null> {
    const row = await this.database.db.selectFrom('login_failures').select('locked_until')
      .where('key', '=', key).where('locked_until', '>', now)
      .executeTakeFirst();
    return row?.locked_until == null ? null : Number(row.locked_until);
  }

  async clearFailures(key: string): Promise<void> {
    await this.database.db.deleteFrom('login_failures').where('key', '=', key).execute();
  }

  // Found through the updated_at index (migration 0004) and deleted in the token
  // purge's paced batches: a spray of guesses can leave millions of counters.
  forgetFailuresBefore(olderThan: number, betweenBatches: Pause = yieldToRequests): Promise<number> {
    return deleteInBatches(this.database, betweenBatches, 'login_failures', 'key', (limit) => this.database.db.selectFrom('login_failures')
      .where('updated_at', '<', olderThan)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', olderThan)]))
      .limit(limit));
  }
}
