import type { OpenDatabase } from '../database.ts';
import type { DeviceStore } from '../stores.ts';
import { normalizeEmail } from './users.ts';

export class KyselyDeviceStore implements DeviceStore {
  constructor(private readonly database: OpenDatabase) {}

  async isTrustedFor(deviceHash: string, email: string, since: number): Promise<boolean> {
    const row = await this.database.db.selectFrom('trusted_devices as d')
      .innerJoin('users as u', 'u.id', 'd.user_id')
      .select('d.user_id')
      .where('d.device_hash', '=', deviceHash).where('u.email', '=', normalizeEmail(email))
      .where('d.last_used_at', '>=', since)
      .executeTakeFirst();
    return row !== undefined;
  }

  async trust(deviceHash: string, userId: number, now: number): Promise<void> {
    await this.database.db.insertInto('trusted_devices')
      .values({ device_hash: deviceHash, user_id: userId, last_used_at: now })
      .onConflict((conflict) => conflict.columns(['device_hash', 'user_id']).doUpdateSet({ last_used_at: now }))
      .execute();
  }
}
