// Rows written as an older build wrote them, for tests of a migration on the data it meets:
// the store code of today writes columns that a database not yet migrated lacks.
import { sql, type Kysely } from 'kysely';
import type { Grant, OwnedApplication } from '../../src/domain/records.ts';
import type { Database } from '../../src/storage/schema.ts';
import { T0 } from './fixtures.ts';

/** A user's grant of another's application, written through the columns of migration 0001 only. */
export async function grantFromBefore(db: Kysely<Database>) {
  const insert = async (table: string, values: Record<string, unknown>) => {
    const columns = sql.join(Object.keys(values).map((column) => sql.ref(column)));
    const { rows } = await sql<{ id: number }>`insert into ${sql.table(table)} (${columns}) values (${sql.join(Object.values(values))}) returning id`.execute(db);
    return rows[0]!.id;
  };
  const person = (email: string) => ({ email, name: email, password_hash: 'x', created_at: T0, updated_at: T0 });
  const ownerId = await insert('users', person('developer@example.com'));
  const userId = await insert('users', person('user@example.com'));
  const applicationId = await insert('applications', {
    owner_id: ownerId, name: 'Budget App', client_id: 'budget-app', secret_hash: 'f'.repeat(64), redirect_uris: '[]',
    confidential: 1, pkce_required: 0, scopes: 'read', created_at: T0, updated_at: T0,
  });
  const grantId = await insert('grants', { user_id: userId, application_id: applicationId, scope: 'read', created_at: T0 });
  return {
    user: { id: userId },
    application: { id: applicationId, ownerId } as OwnedApplication,
    grant: { id: grantId, userId, applicationId, scope: ['read'], createdAt: T0, lastUsedAt: null, revokedAt: null } satisfies Grant,
  };
}

