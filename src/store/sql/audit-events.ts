import { newId } from '../../ids.js';
import type { AuditEventInput } from '../types.js';
import { type ParametersOf, shared } from './statement.js';

export const auditEventSql = {
  insert: shared(
    `INSERT INTO audit_events (id, workspace_id, environment, type, actor, target, reason, created_at)
     VALUES (:id, :workspaceId, :environment, :type, :actor, :target, :reason, :createdAt)`,
  ),
};

/** The values of a new audit event's row; both stores keep the actor and target as JSON text. */
export const auditEventParameters = (event: AuditEventInput): ParametersOf<typeof auditEventSql.insert> => ({
  id: newId('aud'),
  workspaceId: event.workspaceId,
  environment: event.environment,
  type: event.type,
  actor: JSON.stringify(event.actor),
  target: JSON.stringify(event.target),
  reason: event.reason,
  createdAt: event.at,
});
