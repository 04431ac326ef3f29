/**
 * The words of integrations the screens list: the webhook event types (in the contract's order) and the delivery
 * statuses. Records over the contract's enums, so a value the contract adds is a compile error here until it is listed.
 */
import type { EventType, IntegrationLog } from '../client/schemas.js';

const known: Record<EventType, true> = {
  'form.created': true,
  'form.updated': true,
  'form.deleted': true,
  'submission.created': true,
  'submission.completed': true,
  'submission.rescored': true,
  'submission.deleted': true,
  'submission.erased': true,
  'integration.ping': true,
  'integration.disabled': true,
};
export const eventTypes = Object.keys(known) as EventType[];

export type DeliveryStatus = IntegrationLog['status'];
export const deliveryStatusWords: Record<DeliveryStatus, string> = { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' };
