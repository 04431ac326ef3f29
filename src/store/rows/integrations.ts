import type { Environment, Schema } from '../../contract.js';
import type { CircuitState, DueDelivery, EventRecord, IntegrationRecord } from '../integration-store.js';
import { fromFlag, fromJson } from './json.js';

type Integration = Schema<'Integration'>;
type IntegrationLog = Schema<'IntegrationLog'>;

export interface IntegrationRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  url: string;
  events: unknown;
  enabled: number | boolean;
  description: string | null;
  form_id: string | null;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: string | null;
  secret_hint: string;
  created_at: string;
  updated_at: string;
  consecutive_failures: number;
  failing_since: string | null;
  paused_until: string | null;
  disabled_at: string | null;
  disabled_reason: Integration['disabled_reason'];
  metadata: unknown;
}

export interface DeliveryRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  integration_id: string;
  event_id: string;
  event_type: Schema<'EventType'>;
  attempt: number;
  status: IntegrationLog['status'];
  url: string;
  mock: number | boolean;
  dispatched: number | boolean;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
  due_at: string;
  created_at: string;
}

export interface EventRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  type: Schema<'EventType'>;
  form_id: string | null;
  /** Absent where a query leaves it out. */
  submission_id?: string | null;
  body: string;
  created_at: string;
  synthetic: number | boolean;
}

/** A leased delivery joined with its integration and event. */
export interface DueDeliveryRow {
  id: string;
  attempt: number;
  mock: number | boolean;
  integration_id: string;
  workspace_id: string;
  url: string;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: string | null;
  event_id: string;
  event_type: Schema<'EventType'>;
  body: string;
  synthetic: number | boolean;
}

export const toIntegration = (row: IntegrationRow): Integration => ({
  id: row.id,
  object: 'integration',
  type: 'webhook',
  url: row.url,
  events: fromJson<Integration['events']>(row.events),
  enabled: fromFlag(row.enabled),
  disabled_at: row.disabled_at,
  disabled_reason: row.disabled_reason,
  description: row.description,
  form_id: row.form_id,
  secret_hint: row.secret_hint,
  previous_secret_expires_at: row.previous_secret_expires_at,
  test: row.environment === 'test',
  created_at: row.created_at,
  updated_at: row.updated_at,
  metadata: fromJson<Integration['metadata']>(row.metadata),
});

export const toCircuit = (row: IntegrationRow): CircuitState => ({
  consecutiveFailures: row.consecutive_failures,
  failingSince: row.failing_since,
  pausedUntil: row.paused_until,
  enabled: fromFlag(row.enabled),
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  updatedAt: row.updated_at,
});

export const toIntegrationRecord = (row: IntegrationRow): IntegrationRecord => ({
  integration: toIntegration(row),
  workspaceId: row.workspace_id,
  environment: row.environment,
  signingSecret: row.signing_secret,
});

export const toLog = (row: DeliveryRow): IntegrationLog => ({
  id: row.id,
  object: 'integration_log',
  integration_id: row.integration_id,
  event_id: row.event_id,
  event_type: row.event_type,
  attempt: row.attempt,
  status: row.status,
  url: row.url,
  mock: fromFlag(row.mock),
  response_status: row.response_status,
  duration_ms: row.duration_ms,
  error: row.error,
  next_attempt_at: row.next_attempt_at,
  test: row.environment === 'test',
  created_at: row.created_at,
});

export const toEvent = (row: EventRow): EventRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  environment: row.environment,
  type: row.type,
  formId: row.form_id,
  submissionId: row.submission_id ?? null,
  createdAt: row.created_at,
  body: row.body,
  synthetic: fromFlag(row.synthetic),
});

export const toDueDelivery = (row: DueDeliveryRow): DueDelivery => ({
  id: row.id,
  attempt: row.attempt,
  mock: fromFlag(row.mock),
  integration: {
    id: row.integration_id,
    workspaceId: row.workspace_id,
    url: row.url,
    signingSecret: row.signing_secret,
    previousSecret:
      row.previous_signing_secret === null || row.previous_secret_expires_at === null
        ? null
        : { secret: row.previous_signing_secret, expiresAt: row.previous_secret_expires_at },
  },
  event: { id: row.event_id, type: row.event_type, body: row.body, synthetic: fromFlag(row.synthetic) },
});

/** A first attempt of `event` to `integration`, due at `at` (when it was queued). */
export function firstAttempt(
  integration: { id: string; url: string },
  event: EventRecord,
  options: { id: string; at: string; mock: boolean; dispatched: boolean },
): DeliveryRow {
  return {
    id: options.id,
    workspace_id: event.workspaceId,
    environment: event.environment,
    integration_id: integration.id,
    event_id: event.id,
    event_type: event.type,
    attempt: 1,
    status: 'pending',
    url: integration.url,
    mock: options.mock,
    dispatched: options.dispatched,
    response_status: null,
    duration_ms: null,
    error: null,
    next_attempt_at: null,
    due_at: options.at,
    created_at: options.at,
  };
}

/** The attempt that follows a failed one, due when the failed one said. */
export const nextAttempt = (row: DeliveryRow, id: string, dueAt: string): DeliveryRow => ({
  ...row,
  id,
  attempt: row.attempt + 1,
  status: 'pending',
  response_status: null,
  duration_ms: null,
  error: null,
  next_attempt_at: null,
  due_at: dueAt,
  created_at: dueAt,
});
