/**
 * The store-backed `EventPublisher`: each domain event becomes a stored event (the envelope the webhook
 * schemas describe) and one pending delivery per subscribed integration, in one transaction. The delivery
 * worker sends them later; nothing is sent from the request that caused the event.
 *
 * The publisher is this module's one seam in `Services`, so it also carries the operator's webhook URL
 * policy: the use cases that check URLs on create and update read it from here (`webhookUrlPolicyOf`).
 */
import type { Environment, Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import type { EventRecord } from '../../store/integration-store.js';
import type { Store } from '../../store/types.js';
import { definitionEnvironments } from '../access.js';
import type { DomainEvent, EventPublisher } from '../events.js';
import type { Services } from '../services.js';
import { type ResolvedAddress, resolveWithDns, strictWebhookUrls, type WebhookUrlPolicy } from './webhook-url.js';

export interface IntegrationEvents extends EventPublisher {
  readonly webhookUrls: WebhookUrlPolicy;
}

export interface IntegrationEventsOptions {
  now?: (() => Date) | undefined;
  /** ALLOW_PRIVATE_WEBHOOK_URLS: accept loopback and private targets (local testing only). */
  allowPrivateWebhookUrls?: boolean | undefined;
  resolveHost?: ((hostname: string) => Promise<ResolvedAddress[]>) | undefined;
  /** Publishing never fails the caller's request (its change is stored already); failures are reported here. */
  onError?: ((error: unknown, event: DomainEvent) => void) | undefined;
}

export function eventRecord(
  event: { workspaceId: string; environment: Environment; type: Schema<'EventType'>; formId: string | null; data: Record<string, unknown> },
  createdAt: string,
): EventRecord {
  // `data` is typed by each webhook's schema; the envelope's own schema leaves it open.
  const envelope: Omit<Schema<'Event'>, 'data'> & { data: Record<string, unknown> } = {
    id: newId('evt'),
    object: 'event',
    type: event.type,
    created_at: createdAt,
    test: event.environment === 'test',
    data: event.data,
  };
  return {
    id: envelope.id,
    workspaceId: event.workspaceId,
    environment: event.environment,
    type: event.type,
    formId: event.formId,
    createdAt,
    body: JSON.stringify(envelope),
  };
}

export function integrationEvents(store: Store, options: IntegrationEventsOptions = {}): IntegrationEvents {
  const now = options.now ?? (() => new Date());
  const onError =
    options.onError ??
    ((error: unknown, event: DomainEvent) => {
      process.emitWarning(
        `An ${event.type} event could not be stored for delivery: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  return {
    webhookUrls: { allowPrivateAddresses: options.allowPrivateWebhookUrls ?? false, resolveHost: options.resolveHost ?? resolveWithDns },
    async publish(event) {
      try {
        const environments = definitionEnvironments(event.environment);
        if (!(await store.integrations.hasSubscribers(event.workspaceId, environments, event.type, event.formId))) return;
        const record = eventRecord(event, now().toISOString());
        await store.integrations.publish(record, { environments, mock: event.environment === 'test' });
      } catch (error) {
        onError(error, event);
      }
    },
  };
}

/** The URL policy the app was built with; public addresses only when its publisher carries none. */
export const webhookUrlPolicyOf = (services: Pick<Services, 'events'>): WebhookUrlPolicy =>
  'webhookUrls' in services.events ? (services.events as IntegrationEvents).webhookUrls : strictWebhookUrls;
