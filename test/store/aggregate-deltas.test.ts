/**
 * Analytics and usage stay exact after every acknowledged write, whichever store: PostgreSQL appends each write's
 * aggregate change as a delta row that a background fold moves into the day rows, and its reads add the pending
 * deltas, so a fold changes where the counts are, never what they read.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import type { Store } from '../../src/store/types.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';
import { at, form, submission, workspace } from './conformance/fixtures.js';

describe.each(storeKinds)('the %s store, when submissions to one form are written concurrently', (kind) => {
  let store: Store;
  let workspaceId: string;
  let target: Schema<'Form'>;
  beforeEach(async () => {
    store = await createTestStore(kind);
    workspaceId = await workspace(store);
    target = form('busy');
    await store.forms.create({ form: target, workspaceId, environment: 'live' });
  });
  afterEach(async () => {
    await store.close();
  });

  const partition = () => ({ workspaceId, environment: 'live' as const });
  const funnel = () =>
    store.submissions.funnel({ formId: target.id, environment: 'live', from: '2031-01-01', to: '2031-01-31', topSources: 5 });
  const month = () =>
    store.usage.figures(workspaceId, { month: '2031-01', start: '2031-01-01T00:00:00.000Z', end: '2031-02-01T00:00:00.000Z' });
  const pendingDeltas = async () => Number((await storedRows(store, 'SELECT COUNT(*) AS n FROM submission_aggregate_deltas'))[0]!.n);

  /**
   * 24 creates (16 completed scoring 25 with grade B, 8 partial) from two sources, at once; then, at once, 4 of them
   * rescored to 40 / A and 3 deleted.
   */
  async function concurrentWrites(): Promise<void> {
    const created = Array.from({ length: 24 }, (_, index) => {
      const made = submission(target.id, at(index % 3), index % 3 === 2 ? 'partial' : 'completed');
      const source = index % 4 === 0 ? 'ads' : 'newsletter';
      return { ...made, context: { ...made.context, utm: { ...made.context.utm, source } } };
    });
    await Promise.all(created.map((made) => store.submissions.insert({ submission: made, workspaceId, environment: 'live' })));
    const completed = created.filter((made) => made.status === 'completed');
    await Promise.all([
      ...completed
        .slice(0, 4)
        .map((made) =>
          store.submissions.rescore(partition(), made.id, { score: 40, grade: 'A', scoreBreakdown: [], formVersion: 1, at: at(30) }),
        ),
      // Two completed (one of them with 'ads'), one partial.
      ...[completed[4]!, completed[6]!, created[2]!].map((made) => store.submissions.delete(partition(), made.id)),
    ]);
  }

  /** What the writes above leave: 21 started, 14 completed, of which 4 at 40 / A and 10 at 25 / B. */
  function expectExactCounts(totals: Awaited<ReturnType<typeof funnel>>): void {
    const sum = (pick: (day: (typeof totals.days)[number]) => number) => totals.days.reduce((total, day) => total + pick(day), 0);
    expect(totals.days.map((day) => day.day)).toEqual(['2031-01-01']);
    expect({
      started: sum((d) => d.started),
      completed: sum((d) => d.completed),
      scoreSum: sum((d) => d.scoreSum),
      scoreCount: sum((d) => d.scoreCount),
    }).toEqual({
      started: 21,
      completed: 14,
      scoreSum: 4 * 40 + 10 * 25,
      scoreCount: 14,
    });
    expect(Object.fromEntries(totals.grades.filter((g) => g.completed !== 0).map((g) => [g.grade, g.completed]))).toEqual({ A: 4, B: 10 });
    const steps = Object.fromEntries(totals.steps.map((step) => [step.stepId, [step.reached, step.droppedOff]]));
    expect(steps).toEqual({ start: [21, 7], end: [14, 0] });
    const sources = Object.fromEntries(totals.sources.top.map((source) => [source.source, [source.started, source.completed]]));
    expect(sources).toEqual({ newsletter: [15, 10], ads: [6, 4] });
  }

  it('when creates, rescores and deletes run at once, then analytics and usage count every one of them exactly', async () => {
    await concurrentWrites();
    expectExactCounts(await funnel());
    // Usage counts creates; a delete does not give one back.
    expect((await month()).submissions).toBe(24);
  });

  it('when the funnel is read, then steps and grades come in the order of their keys, whatever plan the database chose', async () => {
    await concurrentWrites();
    const { steps, grades } = await funnel();
    const ids = steps.map((step) => step.stepId);
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).toEqual([...ids].sort());
    // 12 completed submissions still graded B and 4 rescored to A (concurrentWrites).
    expect(grades.map((grade) => grade.grade)).toEqual(['A', 'B']);
  });

  // Where the counts are between folds is PostgreSQL's alone: SQLite writes its aggregate rows in each commit.
  if (kind === 'postgres') {
    it('when the pending deltas are folded, then analytics and usage read the same as before the fold', async () => {
      await concurrentWrites();
      expect(await pendingDeltas()).toBeGreaterThan(0);
      const before = await funnel();
      expect(await store.foldAggregates!()).toBeGreaterThan(0);
      expect(await pendingDeltas()).toBe(0);
      const after = await funnel();
      expectExactCounts(after);
      expect(after).toEqual(before);
      expect((await month()).submissions).toBe(24);
    });

    it('when folds run while writes arrive, then every write is counted once', async () => {
      let folding = true;
      const folds = (async () => {
        while (folding) await store.foldAggregates!();
      })();
      await concurrentWrites();
      folding = false;
      await folds;
      expectExactCounts(await funnel());
      await store.foldAggregates!();
      expectExactCounts(await funnel());
      expect((await month()).submissions).toBe(24);
    });

    it('when another transaction holds the form’s day row and the usage month, then a create does not wait for it', async () => {
      await store.submissions.insert({ submission: submission(target.id, at(1)), workspaceId, environment: 'live' });
      await store.foldAggregates!();
      const holder = new pg.Client({ connectionString: (store as Store & { pool: pg.Pool }).pool.options.connectionString });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        const held = await holder.query('SELECT 1 FROM submission_days WHERE form_id = $1 FOR UPDATE', [target.id]);
        expect(held.rowCount).toBe(1);
        await holder.query('SELECT 1 FROM usage_counters WHERE workspace_id = $1 FOR UPDATE', [workspaceId]);
        const create = store.submissions.insert({ submission: submission(target.id, at(2)), workspaceId, environment: 'live' });
        const waited = await Promise.race([create.then(() => false), new Promise((resolve) => setTimeout(() => resolve(true), 2000))]);
        expect(waited).toBe(false);
        expect((await funnel()).days[0]!.started).toBe(2);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
    });

    it('when the form is deleted with deltas pending, then none of them is left to fold', async () => {
      await concurrentWrites();
      await store.forms.delete(workspaceId, target.id, at(40), {
        revokedKey: () => {
          throw new Error('no key is attached');
        },
      });
      expect(await pendingDeltas()).toBe(0);
    });
  }
});
