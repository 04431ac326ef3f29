/**
 * The store-backed `EventPublisher`: each domain event becomes a stored event (the envelope the webhook
 * schemas describe) and one pending delivery per subscribed integration, written by the store in the
 * transaction of the change that caused it. The delivery worker sends them later; nothing is sent from the
 * request that caused the event.
 */
import type { Environment, Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import type { EventRecord } from '../../store/integration-store.js';
import { definitionEnvironments } from '../access.js';
import type { EventPublisher } from '../events.js';

export interface IntegrationEventsOptions {
  now?: (() => Date) | undefined;
}

/** `synthetic`: a sample sent by dispatch with `type`, marked so in its body (and, by the worker, in a header). */
/**
 * The submission a `submission.*` event carries, `data.object.id`: what the store finds the event by when the
 * submission is deleted or erased. Taken from the data in hand, so the store never parses a body to learn it.
 */
export function carriedSubmissionId(type: Schema<'EventType'>, data: Record<string, unknown>): string | null {
  if (!type.startsWith('submission.')) return null;
  const id = (data.object as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' ? id : null;
}

export function eventRecord(
  event: { workspaceId: string; environment: Environment; type: Schema<'EventType'>; formId: string | null; data: Record<string, unknown> },
  createdAt: string,
  synthetic = false,
): EventRecord {
  // `data` is typed by each webhook's schema; the envelope's own schema leaves it open.
  const envelope: Omit<Schema<'Event'>, 'data'> & { data: Record<string, unknown> } = {
    id: newId('evt'),
    object: 'event',
    type: event.type,
    created_at: createdAt,
    test: event.environment === 'test',
    ...(synthetic ? { synthetic: true as const } : {}),
    data: event.data,
  };
  return {
    id: envelope.id,
    workspaceId: event.workspaceId,
    environment: event.environment,
    type: event.type,
    formId: event.formId,
    submissionId: carriedSubmissionId(event.type, event.data),
    createdAt,
    body: JSON.stringify(envelope),
    ...(synthetic ? { synthetic } : {}),
  };
}

export function integrationEvents(options: IntegrationEventsOptions = {}): EventPublisher {
  const now = options.now ?? (() => new Date());
  return {
    outboxEvent: (event) => ({
      event: eventRecord(event, now().toISOString()),
      subscribers: { environments: definitionEnvironments(event.environment), mock: event.environment === 'test' },
    }),
  };
}
