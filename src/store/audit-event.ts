/** An audit log entry as a change records it, in the change's own transaction. */
import type { Environment, Schema } from '../contract.js';

export interface AuditEventInput {
  workspaceId: string;
  environment: Environment;
  type: Schema<'AuditEvent'>['type'];
  actor: Schema<'AuditEvent'>['actor'];
  target: Schema<'AuditEvent'>['target'];
  reason: string | null;
  at: string;
}
