/**
 * Synthetic samples: `POST /v1/integrations/{id}/dispatch` with `type` sends an event of any type that nothing
 * caused, so that a partner can test a receiver (say, of `submission.completed`) without creating data. Its `data`
 * is the example of that type's webhook in the document (`services.eventSamples`), so it always has the declared
 * shape; it names the integration's form where it names a form, and the integration where it names one. The
 * envelope is marked `synthetic: true`, and every attempt sends `X-Service-Synthetic: true`.
 */
import type { Schema } from '../../contract.js';
import type { EventRecord } from '../../store/outbox.js';
import type { Principal } from '../access.js';
import type { Services } from '../services.js';
import { eventRecord } from './publisher.js';

type Integration = Schema<'Integration'>;

/** The sample's `data`: the example's, with its form and integration ids made the integration's own. */
export function sampleData(example: Record<string, unknown>, integration: Pick<Integration, 'id' | 'form_id'>): Record<string, unknown> {
  const data = structuredClone(example);
  const object = data.object as Record<string, unknown> | undefined;
  if (object !== undefined) {
    if (integration.form_id !== null) {
      if (object.object === 'form') object.id = integration.form_id;
      if ('form_id' in object) object.form_id = integration.form_id;
    }
    if (object.object === 'integration') object.id = integration.id;
  }
  return data;
}

export function syntheticEvent(
  services: Services,
  principal: Principal,
  integration: Pick<Integration, 'id' | 'form_id'>,
  type: Schema<'EventType'>,
  at: string,
): EventRecord {
  const example = services.eventSamples?.get(type);
  // The app always provides them (a document without an example per type does not load).
  if (example === undefined) throw new Error(`No sample of ${type} is available.`);
  return eventRecord(
    {
      workspaceId: principal.workspace.id,
      environment: principal.environment,
      type,
      formId: integration.form_id,
      data: sampleData(example, integration),
    },
    at,
    true,
  );
}
