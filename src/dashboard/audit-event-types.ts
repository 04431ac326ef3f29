import type { AuditEventType } from '../client/schemas.js';

/**
 * The audit event types the log's filter offers, in the contract's order. A record over `AuditEventType`, so a type the
 * contract adds is a compile error here until it is listed (the log itself shows any type as it comes).
 */
const known: Record<AuditEventType, true> = {
  'api_key.created': true,
  'api_key.revoked': true,
  'api_key.expired': true,
  'api_key.revoked_by_transfer': true,
  'publishable_key.created': true,
  'publishable_key.updated': true,
  'publishable_key.revoked': true,
  'form.transfer_requested': true,
  'form.transferred': true,
  'form.transfer_declined': true,
  'form.transfer_canceled': true,
  'form.deleted': true,
  'form.version_restored': true,
  'folder.deleted': true,
  'member.invited': true,
  'member.joined': true,
  'member.signed_in': true,
  'member.removed': true,
  'invite.resent': true,
  'invite.revoked': true,
  'test_data.reset': true,
  'submissions.erased': true,
  'integration.created': true,
  'integration.updated': true,
  'integration.deleted': true,
  'integration.secret_rotated': true,
  'workspace.rate_limits_changed': true,
};
export const auditEventTypes = Object.keys(known) as AuditEventType[];
