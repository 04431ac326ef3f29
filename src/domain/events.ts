/**
 * Domain events (`form.created`, `submission.created`, ...). Use cases publish them after their change is
 * stored; the integrations module turns each into a stored event and a delivery per subscribed
 * integration. Publishing never fails the caller's request: the change has already happened.
 */
import type { Environment, Schema } from '../contract.js';

export interface DomainEvent {
  workspaceId: string;
  environment: Environment;
  type: Schema<'EventType'>;
  /** The form the event concerns, for integrations limited to one form. */
  formId: string | null;
  /** The event's `data` member, as the webhook schema of `type` describes it. */
  data: Record<string, unknown>;
}

export interface EventPublisher {
  publish(event: DomainEvent): Promise<void>;
}

export const noEvents: EventPublisher = { publish: async () => {} };
