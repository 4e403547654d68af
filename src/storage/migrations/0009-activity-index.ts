// A user's events are indexed only where the Activity page lists them: without the
// routine token issues and refreshes, which it leaves out and which are most of the
// table, so token writes do not write a page of the index per user, and the page
// does not read past them.
import { sql, type Migration, type SqlBool } from 'kysely';

/** The event types the index leaves out: routine token issues and refreshes. */
export const ROUTINE_EVENT_TYPES = ['token.issued', 'token.refreshed'] as const;

/**
 * The index's condition. SQLite uses the index only for a query that states it
 * itself (kysely/audit.ts); in literals, not parameters, so that a PostgreSQL plan
 * made for any parameters can prove it too.
 */
export const ACTIVITY_INDEX_CONDITION = sql<SqlBool>`type not in (${sql.join(ROUTINE_EVENT_TYPES.map((type) => sql.lit(type)))})`;

export function activityIndexMigration(): Migration {
  return {
    async up(db) {
      await db.schema.dropIndex('audit_events_user').execute();
      await db.schema.createIndex('audit_events_user_activity').on('audit_events').columns(['user_id', 'created_at'])
        .where(ACTIVITY_INDEX_CONDITION).execute();
    },
  };
}
