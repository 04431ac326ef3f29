import type Database from 'better-sqlite3';
import { type AuditRow, toAuditEvent } from '../rows/audit-events.js';
import { auditEventParameters, auditEventSql } from '../sql/audit-events.js';
import type { AuditEventInput, AuditEventStore } from '../types.js';
import { keysetPage } from './pagination.js';
import { prepared } from './shared-sql.js';

/** Inserts an audit event; shared by the stores whose changes must be audited in their own transaction. */
export function insertAuditEvent(db: Database.Database, event: AuditEventInput): void {
  prepared(db, auditEventSql.insert).run(auditEventParameters(event));
}

export function sqliteAuditEvents(db: Database.Database): AuditEventStore {
  return {
    async record(event) {
      insertAuditEvent(db, event);
    },
    async list(workspaceId, filter, page) {
      const where = ['a.workspace_id = ?'];
      const params: unknown[] = [workspaceId];
      if (filter.type !== undefined) {
        where.push('a.type = ?');
        params.push(filter.type);
      }
      const result = keysetPage<AuditRow>(db, {
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
