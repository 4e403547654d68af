import type { Kysely } from 'kysely';
import type { AuditEvent, AuditEventType, NewAuditEvent } from '../../domain/records.ts';
import type { AuditEventRow, Database } from '../schema.ts';
import type { AuditStore } from '../stores.ts';
import { ACTIVITY_INDEX_CONDITION, ROUTINE_EVENT_TYPES } from '../migrations/0009-activity-index.ts';
import { changedRows, everyColumn, fieldsOf } from './columns.ts';

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return { ...fieldsOf(row), type: row.type as AuditEventType, detail: JSON.parse(row.detail) as Record<string, unknown> };
}

/** The columns an audit event is written with; its id is generated. */
export const NEW_EVENT_COLUMNS = everyColumn<Omit<AuditEventRow, 'id'>>()(['type', 'user_id', 'application_id', 'ip', 'detail', 'created_at']);
const AUDIT_EVENT_COLUMNS = ['id', ...NEW_EVENT_COLUMNS] as const;

export function auditEventRow(event: NewAuditEvent): Omit<AuditEventRow, 'id'> {
  const { type, userId: user_id, applicationId: application_id, ip, detail, createdAt: created_at } = event;
  return { type, user_id, application_id, ip, detail: JSON.stringify(detail), created_at };
}

/** Writes `event` on `executor`: the database, or the transaction of the change it records. */
export async function writeAuditEvent(executor: Kysely<Database>, event: NewAuditEvent): Promise<void> {
  await executor.insertInto('audit_events').values(auditEventRow(event)).execute();
}

/** Records `event` only when the change's statement changed a row; says whether it did. */
export async function recordIfChanged(executor: Kysely<Database>, result: Parameters<typeof changedRows>[0], event: NewAuditEvent): Promise<boolean> {
  if (changedRows(result) === 0) return false;
  await writeAuditEvent(executor, event);
  return true;
}

/**
 * The query behind listEventsForUser. Types without routine token issues and refreshes
 * (the Activity page's) are found through the user's index, whose condition the query
 * states for SQLite's planner to use it (migration 0009).
 */
export function eventsOfUser(db: Kysely<Database>, userId: number, limit: number, types?: readonly AuditEventType[]) {
  const indexed = types !== undefined && types.every((type) => !(ROUTINE_EVENT_TYPES as readonly AuditEventType[]).includes(type));
  return db.selectFrom('audit_events').select(AUDIT_EVENT_COLUMNS)
    .where('user_id', '=', userId)
    .$if(types !== undefined, (query) => query.where('type', 'in', types!))
    .$if(indexed, (query) => query.where(ACTIVITY_INDEX_CONDITION))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
}

export class KyselyAuditStore implements AuditStore {
  constructor(private readonly db: Kysely<Database>) {}

  recordEvent(event: NewAuditEvent): Promise<void> {
    return writeAuditEvent(this.db, event);
  }

  /** Newest first; the id breaks ties between events recorded in the same millisecond. */
  async listEventsForUser(userId: number, limit: number, types?: readonly AuditEventType[]): Promise<AuditEvent[]> {
    if (types !== undefined && types.length === 0) return [];
    const rows = await eventsOfUser(this.db, userId, limit, types).execute();
    return rows.map(toAuditEvent);
  }
}
