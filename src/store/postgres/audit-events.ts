import { type AuditRow, toAuditEvent } from '../rows/audit-events.js';
import { auditEventParameters, auditEventSql } from '../sql/audit-events.js';
import type { AuditEventInput, AuditEventStore } from '../types.js';
import { Parameters, type Queryable, run } from './database.js';
import { keysetPage } from './pagination.js';

/** Inserts an audit event; shared by the stores whose changes must be audited in their own transaction. */
export async function insertAuditEvent(db: Queryable, event: AuditEventInput): Promise<void> {
  await run(db, ...auditEventSql.insert.bindPostgres(auditEventParameters(event)));
}

export function postgresAuditEvents(db: Queryable): AuditEventStore {
  return {
    async record(event) {
      await insertAuditEvent(db, event);
    },
    async list(workspaceId, filter, page) {
      const params = new Parameters();
      const where = [`a.workspace_id = ${params.add(workspaceId)}`];
      if (filter.type !== undefined) where.push(`a.type = ${params.add(filter.type)}`);
      const result = await keysetPage<AuditRow>(db, {
        from: 'audit_events a',
        alias: 'a',
        select: 'a.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toAuditEvent), hasMore: result.hasMore };
    },
  };
}
