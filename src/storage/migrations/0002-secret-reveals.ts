// Client secrets waiting to be shown once after a redirect (SecretRevealStore). Rows go
// with the session or application they belong to.
import type { Migration } from 'kysely';
import { cascadingTo, required } from './columns.ts';

export function secretRevealsMigration(): Migration {
  return {
    async up(db) {
      await db.schema.createTable('secret_reveals')
        .addColumn('session_id_hash', 'text', cascadingTo('sessions.id_hash'))
        .addColumn('application_id', 'integer', cascadingTo('applications.id'))
        .addColumn('sealed_secret', 'text', required)
        .addColumn('expires_at', 'bigint', required)
        .addPrimaryKeyConstraint('secret_reveals_pk', ['session_id_hash', 'application_id'])
        .execute();
      await db.schema.createIndex('secret_reveals_expires').on('secret_reveals').column('expires_at').execute();
      await db.schema.createIndex('secret_reveals_application').on('secret_reveals').column('application_id').execute();
    },
  };
}
