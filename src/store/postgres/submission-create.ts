/**
 * Submission creates as one statement per batch: a data-modifying CTE writes each submission, its aggregate delta,
 * its email index entries, its events with their first delivery attempts and its Idempotency-Key's completion,
 * each part gated on the submission's form still being its workspace's. One statement is one round trip and its
 * own transaction (autocommit), where the same writes one by one took a dozen inside BEGIN ... COMMIT.
 *
 * Concurrent creates of one workspace share a statement (`CreateBatches`): while a workspace has
 * `runningPerWorkspace` statements in flight, its next creates wait and go together in the next one. A statement's
 * fixed cost (starting its executor, opening each table's indexes, the commit and its WAL flush, the round trip)
 * is then paid once per batch instead of once per create; a create that finds none in flight goes at once, alone.
 * Batches never mix workspaces, so one tenant's create never waits on another's form lock.
 *
 * Rules the statement relies on (docs/internals/postgres-writes.md):
 * - Every part of a CTE sees the same snapshot and none sees another's rows, so nothing here reads what the
 *   statement writes: every value is a parameter, and the parts are gated on `go`, which is read, not written.
 * - `owner` locks the forms' rows FOR SHARE, in id order as every writer of several forms locks them: a transfer's
 *   accept or a delete waits for the create's commit; a create that waited for them reads the row as they left it
 *   and writes nothing for the submissions whose form is no longer their workspace's.
 * - A delivery's id is made in JavaScript like every id: the statement is given a few and writes nothing when
 *   more integrations subscribe than it was given ids for; it then runs again with enough.
 * - The batch is atomic: an error writes nothing for any of its creates. One that is not a lost connection (after
 *   which a commit may have happened) runs each create again alone, so only the create that caused it fails.
 */
import type pg from 'pg';
import { newId } from '../../ids.js';
import { RecordNotFound, StoreConflict, StoreUnavailable } from '../errors.js';
import type { OutboxEntries } from '../outbox.js';
import { insertedColumns, insertedValues } from '../rows/submissions.js';
import type { ListedEmailAnswers, SubmissionRecord } from '../submission-store.js';
import { creationDelta, deltaColumns, deltaRow } from './aggregate-deltas.js';
import { all, isForeignKeyViolation } from './database.js';
import { normalisedEmail } from './schema/submission-emails.js';

/** Delivery ids handed to a first run, per event: enough for most workspaces, so the second run stays rare. */
const deliveryIdsPerEvent = 4;

/**
 * Statements of one workspace's creates in flight at once, in the whole deployment. Two keep one statement running
 * while the next one's creates gather; measured in docs/benchmarks.md against one and three. Each of N server
 * processes runs its share (`runningPerProcess`), at least one.
 */
const runningPerWorkspace = 2;

/** A server process's share of `runningPerWorkspace` when `processes` share the database. */
export const runningPerProcess = (processes: number): number => Math.max(1, Math.floor(runningPerWorkspace / processes));

/** The most creates one statement carries: bounds its parameters and how long its locks are held. */
const largestBatch = 32;

/** One create, as its HTTP request handed it to the store. */
export interface PendingCreate {
  record: SubmissionRecord;
  listed: ListedEmailAnswers;
  entries: OutboxEntries;
}

/** The submission columns given as JSON text, written into the batch's JSON as they are rather than as strings. */
const jsonColumns = new Set(['answers', 'hidden', 'visited_steps', 'score_breakdown', 'metadata', 'context']);
const submissionColumns = insertedColumns.split(', ');
const deltaColumnNames = deltaColumns.split(', ');

/** A JSON object from columns and values; a value in `raw` is JSON text already and goes in unquoted. */
function jsonRow(columns: readonly string[], values: readonly unknown[], raw?: ReadonlySet<string>): string {
  const members = columns.map((column, index) => {
    const value = values[index];
    return `${JSON.stringify(column)}:${raw?.has(column) && value !== null ? (value as string) : JSON.stringify(value ?? null)}`;
  });
  return `{${members.join(',')}}`;
}

/** Whether the integration `alias` subscribes to the event `ev`: the matching of `subscribesTo` (../outbox.ts) in SQL. */
const reaches = (alias: string) =>
  `${alias}.workspace_id = ev.workspace_id AND ${alias}.environment = ANY(ev.environments) AND ${alias}.events ? ev.type
     AND (${alias}.form_id IS NULL OR ${alias}.form_id = ev.form_id)`;

/**
 * The statement, one text for every batch: each part reads its rows from a JSON array parameter, tagged with the
 * create's position `i` in the batch (1-based). Parameters: $1 the submissions, $2 their deltas (one each, in the
 * same order), $3 the email answers, $4 the events (`body` is the envelope's JSON text, kept byte for byte), $5 the
 * key claims, $6 the spare delivery ids, $7 the forms' ids.
 */
const batchStatement = {
  name: 'create_submissions',
  text: `WITH
  sub_in AS (SELECT s.*, s.ordinality::int AS i FROM json_populate_recordset(NULL::submissions, $1::json) WITH ORDINALITY AS s),
  owner AS (SELECT f.id, f.workspace_id FROM forms f WHERE f.id = ANY($7::text[]) ORDER BY f.id COLLATE "C" FOR SHARE),
  owned AS (SELECT s.i FROM sub_in s JOIN owner o ON o.id = s.form_id AND o.workspace_id = s.workspace_id),
  ev AS (SELECT * FROM json_to_recordset($4::json) AS e(i int, id text, workspace_id text, environment text, type text,
    form_id text, submission_id text, body text, created_at timestamptz, environments text[], mock boolean)),
  hooks AS (SELECT i.id, i.url, i.workspace_id, i.environment, i.events, i.form_id FROM integrations i
    WHERE i.enabled AND EXISTS (SELECT 1 FROM ev WHERE ${reaches('i')}) ORDER BY i.id COLLATE "C" FOR KEY SHARE OF i),
  reached AS (SELECT row_number() OVER () AS n, ev.*, h.id AS integration_id, h.url FROM ev JOIN hooks h ON ${reaches('h')}),
  fits AS (SELECT 1 WHERE (SELECT count(*) FROM reached) <= cardinality($6::text[])),
  claims AS (SELECT * FROM json_to_recordset($5::json) AS c(i int, owner_id text, key_hash text, sealed_response text, submission_id text)),
  claim AS (UPDATE idempotency_keys k SET state = 'done', sealed_response = c.sealed_response, submission_id = c.submission_id
    FROM claims c WHERE k.owner_id = c.owner_id AND k.key_hash = c.key_hash AND k.state = 'in_progress'
      AND c.i IN (SELECT i FROM owned) AND EXISTS (SELECT 1 FROM fits) RETURNING c.i),
  go AS (SELECT o.i FROM owned o WHERE EXISTS (SELECT 1 FROM fits)
    AND (o.i IN (SELECT i FROM claim) OR o.i NOT IN (SELECT i FROM claims))),
  sub AS (INSERT INTO submissions (${insertedColumns}) SELECT ${insertedColumns} FROM sub_in WHERE i IN (SELECT i FROM go)),
  delta AS (INSERT INTO submission_aggregate_deltas (${deltaColumns})
    SELECT ${deltaColumns} FROM json_populate_recordset(NULL::submission_aggregate_deltas, $2::json) WITH ORDINALITY AS d
    WHERE d.ordinality IN (SELECT i FROM go)),
  emails AS (INSERT INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
    SELECT DISTINCT s.workspace_id, s.environment, ${normalisedEmail('e.answer')}, s.id, s.form_id
    FROM json_to_recordset($3::json) AS e(i int, answer text) JOIN sub_in s ON s.i = e.i WHERE e.i IN (SELECT i FROM go)),
  events AS (INSERT INTO events (id, workspace_id, environment, type, form_id, submission_id, body, created_at)
    SELECT id, workspace_id, environment, type, form_id, submission_id, body, created_at FROM ev WHERE i IN (SELECT i FROM go)),
  deliveries AS (INSERT INTO deliveries (id, workspace_id, environment, integration_id, event_id, event_type, attempt, status,
      url, mock, dispatched, due_at, created_at)
    SELECT ($6::text[])[n], workspace_id, environment, integration_id, id, type, 1, 'pending', url, mock, false, created_at,
      created_at FROM reached WHERE i IN (SELECT i FROM go))
SELECT s.i, s.i IN (SELECT i FROM owned) AS owned, s.i IN (SELECT i FROM claim) AS claimed,
  (SELECT count(*) FROM reached)::int AS subscribed
FROM sub_in s ORDER BY s.i`,
};

interface Outcome {
  i: number;
  owned: boolean;
  claimed: boolean;
  subscribed: number;
}

/** The batch's parameters (see `batchStatement`). */
function batchValues(creates: readonly PendingCreate[], deliveryIds: readonly string[]): unknown[] {
  const submissions: string[] = [];
  const deltas: string[] = [];
  const emails: string[] = [];
  const events: string[] = [];
  const claims: string[] = [];
  const forms = new Set<string>();
  creates.forEach(({ record, listed, entries }, index) => {
    const i = index + 1;
    forms.add(record.submission.form_id);
    submissions.push(jsonRow(submissionColumns, insertedValues(record), jsonColumns));
    deltas.push(jsonRow(deltaColumnNames, deltaRow(creationDelta(record))));
    for (const answer of listed.answers) emails.push(`{"i":${i},"answer":${JSON.stringify(answer)}}`);
    for (const { event, subscribers } of entries.events ?? []) {
      const columns = ['id', 'workspace_id', 'environment', 'type', 'form_id', 'submission_id', 'created_at', 'environments', 'mock'];
      const values = [
        event.id,
        event.workspaceId,
        event.environment,
        event.type,
        event.formId,
        event.submissionId,
        event.createdAt,
        subscribers.environments,
        subscribers.mock,
      ];
      // The body is JSON text: set in as it is, `json_to_recordset` gives a text column the value's own text.
      events.push(`{"i":${i},"body":${event.body},${jsonRow(columns, values).slice(1)}`);
    }
    const response = entries.response;
    if (response)
      claims.push(
        jsonRow(
          ['i', 'owner_id', 'key_hash', 'sealed_response', 'submission_id'],
          [i, response.ownerId, response.keyHash, response.sealedResponse, response.submissionId ?? null],
        ),
      );
  });
  const array = (rows: string[]) => `[${rows.join(',')}]`;
  return [array(submissions), array(deltas), array(emails), array(events), array(claims), deliveryIds, [...forms]];
}

const deliveryIds = (count: number) => Array.from({ length: count }, () => newId('dlv'));

/** What a batch's run settled: each create's error (undefined: written), and the delivery ids an event needed. */
interface BatchRun {
  errors: Array<Error | undefined>;
  idsPerEvent: number;
}

/**
 * Runs one batch's statement until its deliveries fit, giving it `idsPerEvent` ids per event first, and settles
 * each create: not found when its form is not its workspace's, a conflict when its Idempotency-Key claim was lost
 * (nothing written for either), done otherwise. Rejects as a whole when the statement fails, having written nothing.
 */
async function runBatch(pool: pg.Pool, creates: readonly PendingCreate[], idsPerEvent: number): Promise<BatchRun> {
  const events = creates.reduce((sum, { entries }) => sum + (entries.events?.length ?? 0), 0);
  let ids = deliveryIds(events * idsPerEvent);
  for (;;) {
    const outcomes = await all<Outcome>(pool, batchStatement, batchValues(creates, ids));
    const subscribed = outcomes[0]?.subscribed ?? 0;
    if (subscribed > ids.length) {
      ids = deliveryIds(subscribed + deliveryIdsPerEvent);
      continue;
    }
    const errors = creates.map(({ record, entries }, index) => {
      const outcome = outcomes[index]!;
      if (!outcome.owned) return new RecordNotFound('form', record.submission.form_id);
      // Another request holds or has answered this key: the change would be made twice, so it was not made.
      if (entries.response && !outcome.claimed) return new StoreConflict('idempotency_claim_lost');
      return undefined;
    });
    return { errors, idsPerEvent: Math.max(deliveryIdsPerEvent, events === 0 ? 0 : Math.ceil(subscribed / events)) };
  }
}

/** One create alone: the form's foreign key, which the held row makes unexpected, still answers as not found. */
async function runAlone(pool: pg.Pool, create: PendingCreate, idsPerEvent: number): Promise<BatchRun> {
  try {
    return await runBatch(pool, [create], idsPerEvent);
  } catch (error) {
    if (isForeignKeyViolation(error, 'submissions_form_id_fkey'))
      return { errors: [new RecordNotFound('form', create.record.submission.form_id)], idsPerEvent };
    throw error;
  }
}

/** Workspaces whose events need more than `deliveryIdsPerEvent` ids remembered at most, the oldest forgotten first. */
const rememberedWorkspaces = 10_000;

interface Waiting extends PendingCreate {
  settle(error: unknown): void;
}

/** The creates of one store's pool, batched per workspace (see the top of this file). */
export class CreateBatches {
  readonly #waiting = new Map<string, Waiting[]>();
  readonly #running = new Map<string, number>();
  /**
   * Delivery ids per event the workspace's last batch needed, where more than `deliveryIdsPerEvent`: its next batch
   * is given that many, so a workspace with many integrations does not run every statement twice.
   */
  readonly #idsPerEvent = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly running = runningPerWorkspace,
  ) {}

  /** Creates the submission; rejects with `RecordNotFound`, `StoreConflict` or the store's error, having written nothing. */
  create(create: PendingCreate): Promise<void> {
    return new Promise((resolve, reject) => {
      const workspace = create.record.workspaceId;
      const settle = (error: unknown) => (error === undefined ? resolve() : reject(error));
      const queue = this.#waiting.get(workspace);
      if (queue) queue.push({ ...create, settle });
      else this.#waiting.set(workspace, [{ ...create, settle }]);
      this.#start(workspace);
    });
  }

  #start(workspace: string): void {
    const queue = this.#waiting.get(workspace);
    const running = this.#running.get(workspace) ?? 0;
    if (!queue || running >= this.running) return;
    const batch = queue.splice(0, largestBatch);
    if (queue.length === 0) this.#waiting.delete(workspace);
    this.#running.set(workspace, running + 1);
    void this.#run(workspace, batch, () => {
      // The slot is given back before the creates are answered, so a caller that creates again at once finds it free.
      const left = this.#running.get(workspace)! - 1;
      if (left === 0) this.#running.delete(workspace);
      else this.#running.set(workspace, left);
      this.#start(workspace);
    });
  }

  /** Runs a batch, gives its slot back (`finished`), then answers each create. Never rejects. */
  async #run(workspace: string, batch: Waiting[], finished: () => void): Promise<void> {
    const idsPerEvent = this.#idsPerEvent.get(workspace) ?? deliveryIdsPerEvent;
    let outcomes: unknown[];
    try {
      const run = batch.length === 1 ? await runAlone(this.pool, batch[0]!, idsPerEvent) : await runBatch(this.pool, batch, idsPerEvent);
      this.#learn(workspace, run.idsPerEvent);
      outcomes = run.errors;
    } catch (error) {
      // A lost connection may have lost the commit's answer, not the commit: the creates are not run again.
      const rerun = batch.length > 1 && !(error instanceof StoreUnavailable && error.reason === 'connection_lost');
      const alone = (create: Waiting) =>
        runAlone(this.pool, create, idsPerEvent).then(
          (run) => run.errors[0],
          (failure: unknown) => failure,
        );
      outcomes = rerun ? await Promise.all(batch.map(alone)) : batch.map(() => error);
    }
    finished();
    for (const [index, create] of batch.entries()) create.settle(outcomes[index]);
  }

  #learn(workspace: string, idsPerEvent: number): void {
    this.#idsPerEvent.delete(workspace);
    if (idsPerEvent <= deliveryIdsPerEvent) return;
    if (this.#idsPerEvent.size >= rememberedWorkspaces) this.#idsPerEvent.delete(this.#idsPerEvent.keys().next().value!);
    this.#idsPerEvent.set(workspace, idsPerEvent);
  }
}
