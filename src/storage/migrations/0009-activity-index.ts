// A user's events are indexed only where the Activity page lists them: without the
// routine token issues and refreshes, which it leaves out and which are most of the
// table. Indexed by user, each of those rows was written at its user's own place in
// the index, so every commit of the token endpoints wrote a page per user it served
// (docs/performance.md); and the page walked past them, reading each row to learn
// its type: a user whose applications had refreshed a million times since their last
// sign-in had the page read a million rows to find its fifty.
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
