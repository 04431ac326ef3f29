/**
 * Domain events (`form.created`, `submission.created`, ...). A use case's events are written in its change's
 * own transaction, through the change's outbox (see ./outbox.ts): the change is never stored without them, nor
 * they without it. The integrations module decides what each becomes: a stored event and a pending delivery per
 * subscribed integration.
 */
import type { Environment, Schema } from '../contract.js';
import type { OutboxEvent } from '../store/outbox.js';

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
  /** The event as its change's outbox stores it; undefined when it is not kept. Synchronous: it runs inside the transaction. */
  outboxEvent(event: DomainEvent): OutboxEvent | undefined;
}

export const noEvents: EventPublisher = { outboxEvent: () => undefined };
