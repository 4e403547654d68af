// The browsers that have signed in to an account, which keep their own sign-in
// allowance while it is locked for unknown ones (OWASP, "Slow Down Online Guessing
// Attacks with Device Cookies"); and an out-of-band authorization's code, waiting on
// its session to be shown once, never carried in a URL.
import type { Migration } from 'kysely';
import { cascadingTo, required } from './columns.ts';

export function trustedDevicesAndNativeCodesMigration(): Migration {
  return {
    async up(db) {
      await db.schema.createTable('trusted_devices')
        .addColumn('device_hash', 'text', required)
        .addColumn('user_id', 'integer', cascadingTo('users.id'))
        .addColumn('last_used_at', 'bigint', required)
        .addPrimaryKeyConstraint('trusted_devices_pk', ['device_hash', 'user_id'])
        .execute();
      await db.schema.createIndex('trusted_devices_user').on('trusted_devices').column('user_id').execute();
      await db.schema.alterTable('sessions').addColumn('native_code', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('native_code_expires_at', 'bigint').execute();
    },
  };
}
