/**
 * PostgreSQL's batched creates (src/store/postgres/submission-create.ts): creates of one workspace that arrive
 * while its statements are in flight share the next statement. Each create must still end as if made alone: stored
 * whole with its delta, email entries, events (their bodies byte for byte) and deliveries, or refused alone with the
 * error it would have had, the others of its batch stored; but a batch that lost its connection (whose commit may
 * have happened) is answered unavailable as a whole and never run again. Batches never mix workspaces.
 */
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordNotFound, StoreConflict, StoreUnavailable } from '../../src/store/errors.js';
import type { Outbox } from '../../src/store/outbox.js';
import { runningPerProcess } from '../../src/store/postgres/submission-create.js';
import type { Store } from '../../src/store/types.js';
import { lockWaiters, until } from '../support/lock-waits.js';
import { createTestStore, storedRows } from '../support/stores.js';
import { at, audit, event, form, integration, submission, workspace } from './conformance/fixtures.js';

const live = (workspaceId: string) => ({ workspaceId, environment: 'live' as const });

describe('the PostgreSQL store, when submissions are created at once', () => {
  let store: Store & { pool: pg.Pool };
  /** The workspaces of each create statement's submissions, one array per statement run. */
  let statements: string[][];
  let ws: string;
  let formId: string;

  beforeEach(async () => {
    store = (await createTestStore('postgres')) as Store & { pool: pg.Pool };
    statements = [];
    const query = store.pool.query.bind(store.pool) as (...args: unknown[]) => unknown;
    store.pool.query = ((config: { name?: string; values?: unknown[] }, ...rest: unknown[]) => {
      if (config?.name === 'create_submissions')
        statements.push((JSON.parse(config.values![0] as string) as Array<{ workspace_id: string }>).map((s) => s.workspace_id));
      return query(config, ...rest);
    }) as typeof store.pool.query;
    ws = await workspace(store);
    formId = await formOf(ws);
  });
  afterEach(async () => {
    await store.close();
  });

  async function formOf(workspaceId: string): Promise<string> {
    const created = form(`form-${Math.random().toString(36).slice(2)}`);
    await store.forms.create({ form: created, ...live(workspaceId) });
    return created.id;
  }

  async function subscribe(workspaceId: string): Promise<void> {
    const created = { ...integration(), events: ['submission.created' as const] };
    await store.integrations.create({ integration: created, ...live(workspaceId), signingSecret: 'whsec_secret' }, audit(workspaceId));
  }

  /** A create as the API makes it: an email answer named, a `submission.created` event carrying the submission. */
  function create(workspaceId: string, onForm: string, options: { id?: string; outbox?: Outbox<unknown> } = {}) {
    const created = { ...submission(onForm, at(6)), ...(options.id ? { id: options.id } : {}) };
    const carried = { ...event(workspaceId, 'submission.created'), formId: onForm, submissionId: created.id };
    const outbox: Outbox<unknown> =
      options.outbox ?? (() => ({ events: [{ event: carried, subscribers: { environments: ['live'], mock: false } }] }));
    const done = store.submissions.insert(
      { submission: created, ...live(workspaceId), emailAnswers: [' Ada@Example.com', 'ada@example.com'] },
      outbox,
    );
    return { id: created.id, body: carried.body, done };
  }

  const rows = (sql: string, ...params: unknown[]) => storedRows(store, sql, ...params);
  const countOf = async (sql: string, ...params: unknown[]) => Number((await rows(sql, ...params))[0]!.n);

  /** The rows each create writes, for the given submissions: all of them, or none for a refused one. */
  async function expectStored(ids: string[], bodies: string[]) {
    expect(await countOf('SELECT count(*) AS n FROM submissions WHERE id = ANY(?)', ids)).toBe(ids.length);
    expect(await countOf('SELECT count(*) AS n FROM submission_emails WHERE submission_id = ANY(?)', ids)).toBe(ids.length);
    const events = await rows('SELECT submission_id, body FROM events WHERE submission_id = ANY(?) ORDER BY submission_id', ids);
    expect(events.map((row) => row.body).sort()).toEqual([...bodies].sort());
  }

  it('then the creates of one workspace share statements, and each is stored whole, its event body byte for byte', async () => {
    await subscribe(ws);
    const creates = Array.from({ length: 12 }, () => create(ws, formId));
    await Promise.all(creates.map((c) => c.done));
    // Two go at once, alone; the ten that came while they ran share the next statement.
    expect(statements.map((s) => s.length)).toEqual([1, 1, 10]);
    await expectStored(
      creates.map((c) => c.id),
      creates.map((c) => c.body),
    );
    expect(await countOf('SELECT count(*) AS n FROM deliveries')).toBe(12);
    expect(await countOf('SELECT sum(started) AS n FROM submission_aggregate_deltas WHERE form_id = ?', formId)).toBe(12);
  });

  it('then one whose form is not its workspace’s is not found alone, and the others are stored', async () => {
    const other = await workspace(store);
    const foreign = await formOf(other);
    const creates = Array.from({ length: 8 }, (_, index) => (index === 4 ? create(ws, foreign) : create(ws, formId)));
    const settled = await Promise.allSettled(creates.map((c) => c.done));
    expect(statements.map((s) => s.length)).toEqual([1, 1, 6]);
    expect(settled[4]).toMatchObject({ status: 'rejected', reason: expect.any(RecordNotFound) });
    const stored = creates.filter((_, index) => index !== 4);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(7);
    await expectStored(
      stored.map((c) => c.id),
      stored.map((c) => c.body),
    );
    expect(await countOf('SELECT count(*) AS n FROM submissions WHERE id = ?', creates[4]!.id)).toBe(0);
    expect(await countOf('SELECT count(*) AS n FROM events WHERE submission_id = ?', creates[4]!.id)).toBe(0);
  });

  it('then one whose Idempotency-Key claim was lost conflicts alone, the others stored and their keys completed', async () => {
    const day = 24 * 3600;
    const keyed = async (keyHash: string, lost: boolean) => {
      expect(await store.idempotency.claim('key_1', keyHash, 'fingerprint', at(6), day)).toEqual({ outcome: 'claimed' });
      if (lost) await rows(`UPDATE idempotency_keys SET state = 'done' WHERE key_hash = ?`, keyHash);
      return { ownerId: 'key_1', keyHash, sealedResponse: `sealed ${keyHash}` };
    };
    const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => keyed(`hash_${index}`, index === 3)));
    const creates = responses.map((response) => create(ws, formId, { outbox: () => ({ response }) }));
    const settled = await Promise.allSettled(creates.map((c) => c.done));
    expect(statements.map((s) => s.length)).toEqual([1, 1, 4]);
    expect(settled[3]).toMatchObject({ status: 'rejected', reason: expect.any(StoreConflict) });
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(5);
    expect(await countOf('SELECT count(*) AS n FROM submissions WHERE id = ?', creates[3]!.id)).toBe(0);
    const sealed = await rows(`SELECT key_hash, sealed_response FROM idempotency_keys WHERE sealed_response IS NOT NULL ORDER BY key_hash`);
    expect(sealed.map((row) => row.key_hash)).toEqual(['hash_0', 'hash_1', 'hash_2', 'hash_4', 'hash_5']);
  });

  it('then one that breaks a constraint fails alone with its own error, the others stored after the batch ran them one by one', async () => {
    const existing = create(ws, formId);
    await existing.done;
    statements = [];
    const creates = Array.from({ length: 6 }, (_, index) => (index === 2 ? create(ws, formId, { id: existing.id }) : create(ws, formId)));
    const settled = await Promise.allSettled(creates.map((c) => c.done));
    expect(settled[2]).toMatchObject({ status: 'rejected', reason: { code: '23505' } });
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(5);
    // Two alone, the batch of four (rolled back whole), then its four again alone.
    expect(statements.map((s) => s.length).sort()).toEqual([1, 1, 1, 1, 1, 1, 4]);
    const stored = creates.filter((_, index) => index !== 2);
    await expectStored(
      stored.map((c) => c.id),
      stored.map((c) => c.body),
    );
  });

  it('then, when a failed batch is run again one by one, each create keeps its own outcome: a foreign form’s is still not found', async () => {
    const existing = create(ws, formId);
    await existing.done;
    const foreign = await formOf(await workspace(store));
    statements = [];
    const creates = Array.from({ length: 6 }, (_, index) =>
      index === 2 ? create(ws, formId, { id: existing.id }) : index === 4 ? create(ws, foreign) : create(ws, formId),
    );
    const settled = await Promise.allSettled(creates.map((c) => c.done));
    // Two alone, the batch of four (failed on the duplicate), then its four again alone.
    expect(statements.map((s) => s.length).sort()).toEqual([1, 1, 1, 1, 1, 1, 4]);
    expect(settled[2]).toMatchObject({ status: 'rejected', reason: { code: '23505' } });
    expect(settled[4]).toMatchObject({ status: 'rejected', reason: expect.any(RecordNotFound) });
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(4);
    expect(await countOf('SELECT count(*) AS n FROM submissions WHERE id = ?', creates[4]!.id)).toBe(0);
  });

  it('then a create that goes alone and breaks a constraint fails with its own error, its statement run once', async () => {
    const existing = create(ws, formId);
    await existing.done;
    statements = [];
    await expect(create(ws, formId, { id: existing.id }).done).rejects.toMatchObject({ code: '23505' });
    expect(statements.map((s) => s.length)).toEqual([1]);
  });

  it('then a create reaching more integrations than it was given delivery ids runs again with enough, and the next batch is given enough', async () => {
    for (let index = 0; index < 5; index++) await subscribe(ws);
    const creates = Array.from({ length: 10 }, () => create(ws, formId));
    await Promise.all(creates.map((c) => c.done));
    // Five integrations need five first attempts per event: the two creates that go first alone are given four ids
    // each and run again; the batch of eight after them is given the five per event they needed, and runs once.
    expect(statements.map((s) => s.length).sort()).toEqual([1, 1, 1, 1, 8]);
    expect(await countOf('SELECT count(*) AS n FROM deliveries')).toBe(50);
    expect(await countOf('SELECT count(DISTINCT (event_id, integration_id)) AS n FROM deliveries')).toBe(50);
    expect(await countOf('SELECT count(*) AS n FROM submissions')).toBe(10);
    // A sixth: the two that go first alone, given five per event, run again; the batch after them is given six.
    await subscribe(ws);
    statements = [];
    const more = Array.from({ length: 6 }, () => create(ws, formId));
    await Promise.all(more.map((c) => c.done));
    expect(statements.map((s) => s.length).sort()).toEqual([1, 1, 1, 1, 4]);
    expect(await countOf('SELECT count(*) AS n FROM deliveries')).toBe(50 + 36);
  });

  it('then a batch whose connection is lost answers each of its creates unavailable, and none runs again', async () => {
    // The creates wait for the form, held by a transaction; the ones waiting are then cut off as a failover would.
    const holder = await store.pool.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    /** The backends of the database waiting for a lock, but the holder. */
    const waiting = async () =>
      (
        await store.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
          [holderPid],
        )
      ).rows.map((row) => row.pid);
    const terminate = (pids: number[]) => store.pool.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    let creates: Array<ReturnType<typeof create>>;
    let outcomes: Promise<Array<PromiseSettledResult<void>>>;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM forms WHERE id = $1 FOR UPDATE', [formId]);
      creates = Array.from({ length: 6 }, () => create(ws, formId));
      outcomes = Promise.allSettled(creates.map((c) => c.done));
      // The two that go alone wait; cut off, they give their places to the four gathered behind them.
      await until(async () => (await waiting()).length === 2);
      const alone = await waiting();
      await terminate(alone);
      const batchWaiting = async () => (await waiting()).filter((pid) => !alone.includes(pid));
      await until(async () => statements.length === 3 && (await batchWaiting()).length === 1);
      const batch = await batchWaiting();
      expect(statements.map((s) => s.length)).toEqual([1, 1, 4]);
      await terminate(batch);
      // The form is free now: a create run again would be stored.
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    for (const outcome of await outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: expect.any(StoreUnavailable) });
      expect((outcome as PromiseRejectedResult).reason.reason).toBe('connection_lost');
    }
    // Each statement ran once: the batch of four was not run again, alone or together.
    expect(statements.map((s) => s.length)).toEqual([1, 1, 4]);
    expect(
      await countOf(
        'SELECT count(*) AS n FROM submissions WHERE id = ANY(?)',
        creates.map((c) => c.id),
      ),
    ).toBe(0);
    // The store still works: the next create is stored.
    const after = create(ws, formId);
    await after.done;
    await expectStored([after.id], [after.body]);
  });

  it('then no statement carries creates of two workspaces', async () => {
    const other = await workspace(store);
    const otherForm = await formOf(other);
    const creates = Array.from({ length: 16 }, (_, index) => (index % 2 === 0 ? create(ws, formId) : create(other, otherForm)));
    await Promise.all(creates.map((c) => c.done));
    expect(statements.length).toBeLessThan(16);
    for (const workspaces of statements) expect(new Set(workspaces).size).toBe(1);
  });

  it('then a workspace’s creates do not wait for another workspace’s form held by a transaction', async () => {
    const other = await workspace(store);
    const otherForm = await formOf(other);
    const holder = await store.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM forms WHERE id = $1 FOR UPDATE', [otherForm]);
      const waitersBefore = await lockWaiters(store.pool);
      const held = [create(other, otherForm), create(other, otherForm), create(other, otherForm)];
      await until(async () => (await lockWaiters(store.pool)) >= waitersBefore + 2);
      const free = Array.from({ length: 6 }, () => create(ws, formId));
      await Promise.all(free.map((c) => c.done));
      expect(await countOf('SELECT count(*) AS n FROM submissions WHERE workspace_id = ?', other)).toBe(0);
      await holder.query('COMMIT');
      await Promise.all(held.map((c) => c.done));
      expect(await countOf('SELECT count(*) AS n FROM submissions WHERE workspace_id = ?', other)).toBe(3);
    } finally {
      holder.release();
    }
  });
});

describe('the create statements a server process runs per workspace', () => {
  it('when WORKERS processes share the database, then each runs its share of two, at least one', () => {
    expect([1, 2, 3, 8].map(runningPerProcess)).toEqual([2, 1, 1, 1]);
  });
});
