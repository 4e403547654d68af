import type { Kysely } from 'kysely';
import type { AuditEvent, AuditEventType, NewAuditEvent } from '../records.ts';
import type { AuditEventRow, Database } from '../schema.ts';
import type { AuditStore } from '../stores.ts';
import { changedRows } from './columns.ts';
import { everyColumn } from './prepared.ts';

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    type: row.type as AuditEventType,
    userId: row.user_id,
    applicationId: row.application_id,
    ip: row.ip,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}

/** The columns an audit event is written with (its id is generated). */
export const AUDIT_EVENT_COLUMNS = everyColumn<Omit<AuditEventRow, 'id'>>()(['type', 'user_id', 'application_id', 'ip', 'detail', 'created_at']);

export function auditEventRow(event: NewAuditEvent): Omit<AuditEventRow, 'id'> {
  return {
    type: event.type,
    user_id: event.userId,
    application_id: event.applicationId,
    ip: event.ip,
    detail: JSON.stringify(event.detail),
    created_at: event.createdAt,
  };
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

export class KyselyAuditStore implements AuditStore {
  constructor(private readonly db: Kysely<Database>) {}

  recordEvent(event: NewAuditEvent): Promise<void> {
    return writeAuditEvent(this.db, event);
  }

  /** Newest first; the id breaks ties between events recorded in the same millisecond. */
  async listEventsForUser(userId: number, limit: number, types?: readonly AuditEventType[]): Promise<AuditEvent[]> {
    if (types !== undefined && types.length === 0) return [];
    const rows = await this.db.selectFrom('audit_events').selectAll()
      .where('user_id', '=', userId)
      .$if(types !== undefined, (query) => query.where('type', 'in', types!))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toAuditEvent);
  }
}
