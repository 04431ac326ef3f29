/**
 * A submission create as one statement: a data-modifying CTE writes the submission, its aggregate delta, its email
 * index entries, its events with their first delivery attempts and the Idempotency-Key's completion, each part
 * gated on the form still being the workspace's. One statement is one round trip and its own transaction
 * (autocommit), where the same writes one by one took a dozen inside BEGIN ... COMMIT.
 *
 * Rules the statement relies on (docs/internals/postgres-writes.md):
 * - Every part of a CTE sees the same snapshot and none sees another's rows, so nothing here reads what the
 *   statement writes: every value is a parameter, and the parts are gated on `go`, which is read, not written.
 * - `owner` locks the form's row FOR SHARE as the separate SELECT did: a transfer's accept or a delete waits for
 *   the create's commit; a create that waited for them re-checks the row as they left it and writes nothing.
 * - A delivery's id is made in JavaScript like every id: the statement is given a few and writes nothing when
 *   more integrations subscribe than it was given ids for; it then runs again with enough.
 */
import type pg from 'pg';
import { newId } from '../../ids.js';
import { RecordNotFound, StoreConflict } from '../errors.js';
import type { OutboxEntries } from '../outbox.js';
import { insertedColumns, insertedValues } from '../rows/submissions.js';
import type { ListedEmailAnswers, SubmissionRecord } from '../submission-store.js';
import { creationDelta, deltaColumns, deltaValues } from './aggregate-deltas.js';
import { isForeignKeyViolation, one, Parameters } from './database.js';
import { normalisedEmail } from './schema/submission-emails.js';

/** Delivery ids handed to a first run, per event: enough for most workspaces, so the second run stays rare. */
const deliveryIdsPerEvent = 4;

/** An event's row with whom it reaches, typed: a VALUES list would otherwise read every parameter as text. */
const eventColumns = [
  ['id', 'text'],
  ['workspace_id', 'text'],
  ['environment', 'text'],
  ['type', 'text'],
  ['form_id', 'text'],
  ['submission_id', 'text'],
  ['body', 'text'],
  ['created_at', 'timestamptz'],
  ['environments', 'text[]'],
  ['mock', 'boolean'],
] as const;

/** Whether the integration `alias` subscribes to the event `ev`: the matching of `subscribesTo` (../outbox.ts) in SQL. */
const reaches = (alias: string) =>
  `${alias}.workspace_id = ev.workspace_id AND ${alias}.environment = ANY(ev.environments) AND ${alias}.events ? ev.type
     AND (${alias}.form_id IS NULL OR ${alias}.form_id = ev.form_id)`;

interface CreateOutcome {
  owned: boolean;
  subscribed: number;
  claimed: boolean | null;
}

/** The statement and its values; the name is the statement's shape, which alone decides its text. */
function createStatement(record: SubmissionRecord, listed: ListedEmailAnswers, entries: OutboxEntries, deliveryIds: string[]) {
  const params = new Parameters();
  const add = (value: unknown) => params.add(value);
  const { submission } = record;
  const events = entries.events ?? [];
  const response = entries.response;
  const ctes = [
    `owner AS (SELECT 1 FROM forms WHERE id = ${add(submission.form_id)} AND workspace_id = ${add(record.workspaceId)} FOR SHARE)`,
    // The events, then the integrations each one reaches.
    events.length === 0
      ? `ev AS (SELECT ${eventColumns.map(([column, type]) => `NULL::${type} AS ${column}`).join(', ')} WHERE false)`
      : `ev (${eventColumns.map(([column]) => column).join(', ')}) AS (VALUES ${events
          .map(({ event, subscribers }) => {
            const values: unknown[] = [
              event.id,
              event.workspaceId,
              event.environment,
              event.type,
              event.formId,
              event.submissionId,
              event.body,
            ];
            values.push(event.createdAt, subscribers.environments, subscribers.mock);
            return `(${values.map((value, column) => `${add(value)}::${eventColumns[column]![1]}`).join(', ')})`;
          })
          .join(', ')})`,
    // The integrations some event reaches, locked as the deliveries' foreign key would lock them: a delete of one
    // waits for this create's commit (and then takes its deliveries with it), or went first and is not reached.
    // In id order, as every other writer and the test-data reset lock integrations, so two of them never cross.
    `hooks AS (SELECT i.id, i.url, i.workspace_id, i.environment, i.events, i.form_id FROM integrations i
       WHERE i.enabled AND EXISTS (SELECT 1 FROM ev WHERE ${reaches('i')}) ORDER BY i.id COLLATE "C" FOR KEY SHARE OF i)`,
    `reached AS (SELECT row_number() OVER () AS n, ev.*, h.id AS integration_id, h.url FROM ev JOIN hooks h ON ${reaches('h')})`,
    `spare AS (SELECT ${add(deliveryIds)}::text[] AS ids)`,
    `fits AS (SELECT 1 FROM owner WHERE (SELECT count(*) FROM reached) <= (SELECT cardinality(ids) FROM spare))`,
    // Written only while the claim is in progress: otherwise another request answers the key, and nothing is written.
    ...(response
      ? [
          `claim AS (UPDATE idempotency_keys SET state = 'done', sealed_response = ${add(response.sealedResponse)}, submission_id = ${add(
            response.submissionId ?? null,
          )} WHERE owner_id = ${add(response.ownerId)} AND key_hash = ${add(response.keyHash)} AND state = 'in_progress'
            AND EXISTS (SELECT 1 FROM fits) RETURNING 1)`,
          'go AS (SELECT 1 FROM fits WHERE EXISTS (SELECT 1 FROM claim))',
        ]
      : ['go AS (SELECT 1 FROM fits)']),
    `sub AS (INSERT INTO submissions (${insertedColumns}) SELECT ${insertedValues(record).map(add).join(', ')} FROM go)`,
    `delta AS (INSERT INTO submission_aggregate_deltas (${deltaColumns})
       SELECT ${deltaValues(creationDelta(record), add)} FROM go)`,
    ...(listed.answers.length === 0
      ? []
      : [
          // Distinct addresses rather than ON CONFLICT DO NOTHING: only two answers of this submission could collide, and a
          // speculative insertion cost about as much as the submission's own row (EXPLAIN ANALYZE, docs/benchmarks.md).
          `emails AS (INSERT INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
             SELECT ${add(listed.workspaceId)}, ${add(listed.environment)}, email, ${add(submission.id)}, ${add(listed.formId)}
             FROM go, (SELECT DISTINCT ${normalisedEmail('answer')} AS email FROM unnest(${add([...listed.answers])}::text[]) AS answer) AS listed)`,
        ]),
    `events AS (INSERT INTO events (id, workspace_id, environment, type, form_id, submission_id, body, created_at)
       SELECT id, workspace_id, environment, type, form_id, submission_id, body, created_at FROM ev, go)`,
    // A first attempt per reached integration, as `firstAttempt` (../rows/integrations.ts) builds it.
    `deliveries AS (INSERT INTO deliveries (id, workspace_id, environment, integration_id, event_id, event_type, attempt, status, url,
         mock, dispatched, due_at, created_at)
       SELECT ids[n], workspace_id, environment, integration_id, id, type, 1, 'pending', url, mock, false, created_at, created_at
       FROM reached, spare, go)`,
  ];
  const outcome = `SELECT EXISTS (SELECT 1 FROM owner) AS owned, (SELECT count(*) FROM reached)::int AS subscribed, ${
    response ? 'EXISTS (SELECT 1 FROM claim)' : 'NULL::boolean'
  } AS claimed`;
  const name = `create_submission_${events.length}_${listed.answers.length > 0 ? 'emails' : 'none'}_${response ? 'claim' : 'none'}`;
  return { statement: { name, text: `WITH ${ctes.join(',\n')}\n${outcome}` }, values: params.values };
}

const deliveryIds = (count: number) => Array.from({ length: count }, () => newId('dlv'));

/**
 * Creates the submission in one statement (see above); not found when its form is not the workspace's, a
 * conflict when the request's Idempotency-Key claim was lost. Nothing is written in either case.
 */
export async function createSubmission(pool: pg.Pool, record: SubmissionRecord, listed: ListedEmailAnswers, entries: OutboxEntries) {
  const formId = record.submission.form_id;
  let ids = deliveryIds((entries.events ?? []).length * deliveryIdsPerEvent);
  for (;;) {
    const { statement, values } = createStatement(record, listed, entries, ids);
    let outcome: CreateOutcome;
    try {
      outcome = (await one<CreateOutcome>(pool, statement, values))!;
    } catch (error) {
      // The form's row is held from the check to the commit, so this is not expected; if a path around the lock
      // appears, the client still hears that the form is gone, not a server error.
      if (isForeignKeyViolation(error, 'submissions_form_id_fkey')) throw new RecordNotFound('form', formId);
      throw error;
    }
    if (!outcome.owned) throw new RecordNotFound('form', formId);
    if (outcome.subscribed > ids.length) {
      ids = deliveryIds(outcome.subscribed + deliveryIdsPerEvent);
      continue;
    }
    // Another request holds or has answered this key: the change would be made twice, so it was not made.
    if (outcome.claimed === false) throw new StoreConflict('idempotency_claim_lost');
    return;
  }
}
