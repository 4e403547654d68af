import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import type { FailureCount, LockoutPolicy, LoginThrottleStore } from '../stores.ts';

export class KyselyLoginThrottleStore implements LoginThrottleStore {
  constructor(private readonly db: Kysely<Database>) {}

  async lockedUntil(keys: readonly string[], now: number): Promise<number | undefined> {
    if (keys.length === 0) return undefined;
    const row = await this.db.selectFrom('login_failures')
      .select((eb) => eb.fn.max('locked_until').as('until'))
      .where('key', 'in', [...keys])
      .where('locked_until', '>', now)
      .executeTakeFirst();
    return row?.until === null || row?.until === undefined ? undefined : Number(row.until);
  }

  // The upsert increments in one statement, so concurrent failures never overwrite each
  // other's count; on PostgreSQL it also takes the row lock that makes the lock update
  // below see the count it returned. ON CONFLICT ... DO UPDATE reads the same in both dialects.
  async recordFailure(key: string, now: number, policy: LockoutPolicy): Promise<FailureCount> {
    return this.db.transaction().execute(async (trx) => {
      const forgotten = sql<boolean>`(login_failures.updated_at <= ${now - policy.forgetAfterMs}
        and (login_failures.locked_until is null or login_failures.locked_until <= ${now}))`;
      const counted = await trx.insertInto('login_failures')
        .values({ key, failures: 1, locked_until: null, updated_at: now })
        .onConflict((conflict) => conflict.column('key').doUpdateSet({
          failures: sql<number>`case when ${forgotten} then 1 else login_failures.failures + 1 end`,
          locked_until: sql<number | null>`case when ${forgotten} then null else login_failures.locked_until end`,
          updated_at: now,
        }))
        .returning(['failures', 'locked_until'])
        .executeTakeFirstOrThrow();
      const failures = Number(counted.failures);
      const current = counted.locked_until === null ? null : Number(counted.locked_until);
      const lockMs = policy.lockoutMs(failures);
      if (lockMs <= 0) return { failures, lockedUntil: current !== null && current > now ? current : null };
      const lockedUntil = Math.max(now + lockMs, current ?? 0);
      await trx.updateTable('login_failures').set({ locked_until: lockedUntil }).where('key', '=', key).execute();
      return { failures, lockedUntil };
    });
  }

  async clearFailures(key: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('key', '=', key).execute();
  }

  async forgetFailuresBefore(olderThan: number): Promise<number> {
    const result = await this.db.deleteFrom('login_failures')
      .where('updated_at', '<', olderThan)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', olderThan)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
