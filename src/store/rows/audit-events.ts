import type { Schema } from '../../contract.js';
import { fromJson } from './json.js';

type AuditEvent = Schema<'AuditEvent'>;

export interface AuditRow {
  id: string;
  environment: AuditEvent['environment'];
  type: AuditEvent['type'];
  actor: string;
  target: string;
  reason: string | null;
  created_at: string;
}

export const toAuditEvent = (row: AuditRow): AuditEvent => ({
  id: row.id,
  object: 'audit_event',
  type: row.type,
  actor: fromJson<AuditEvent['actor']>(row.actor),
  target: fromJson<AuditEvent['target']>(row.target),
  reason: row.reason,
  environment: row.environment,
  created_at: row.created_at,
});
