import type { Environment, Schema } from '../contract.js';

/** An audit event as a store writes it, in the transaction of the change it records. */
export interface AuditEventInput {
  workspaceId: string;
  environment: Environment;
  type: Schema<'AuditEvent'>['type'];
  actor: Schema<'AuditEvent'>['actor'];
  target: Schema<'AuditEvent'>['target'];
  reason: string | null;
  at: string;
}
