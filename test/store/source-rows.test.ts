/**
 * The analytics' per-day UTM source rows are keyed by the respondent's own text (a `utm_source` may hold a name or
 * an address): a row that no longer counts any submission is deleted, so a deleted or erased submission leaves no
 * source behind at zero. On PostgreSQL the rows change when the pending deltas are folded.
 */
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { sourceRowsEmptiedSchema as postgresMigration } from '../../src/store/postgres/schema/source-rows-emptied.js';
import { FunnelTally } from '../../src/store/sqlite/funnel-tally.js';
import { sourceRowsEmptiedSchema as sqliteMigration } from '../../src/store/sqlite/schema/source-rows-emptied.js';
import type { Store } from '../../src/store/types.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';
import { at, form, submission, workspace } from './conformance/fixtures.js';

describe.each(storeKinds)('the %s store, the source rows of a form', (kind) => {
  let store: Store;
  let workspaceId: string;
  let target: Schema<'Form'>;
  beforeEach(async () => {
    store = await createTestStore(kind);
    workspaceId = await workspace(store);
    target = form('sources');
    await store.forms.create({ form: target, workspaceId, environment: 'live' });
  });
  afterEach(async () => {
    await store.close();
  });

  const partition = () => ({ workspaceId, environment: 'live' as const });
  const fromSource = (source: string, second: number, status: 'completed' | 'partial' = 'completed') => {
    const made = submission(target.id, at(second), status);
    return { ...made, context: { ...made.context, utm: { ...made.context.utm, source } } };
  };
  const insert = (made: Schema<'Submission'>) => store.submissions.insert({ submission: made, workspaceId, environment: 'live' });
  /** The source rows as stored (folded first on PostgreSQL), pending deltas included. */
  const sourceRows = async () => {
    await store.foldAggregates?.();
    const rows = await storedRows(store, 'SELECT utm_source, started, completed FROM submission_source_days WHERE form_id = ?', target.id);
    return rows.map((row) => [row.utm_source, Number(row.started), Number(row.completed)]).sort();
  };

  it('when the only submissions of a source are deleted, then no row holds the source any more', async () => {
    const own = [fromSource('ana@example.org', 1), fromSource('ana@example.org', 2, 'partial')];
    for (const made of own) await insert(made);
    await insert(fromSource('newsletter', 3));
    expect(await sourceRows()).toEqual([
      ['ana@example.org', 2, 1],
      ['newsletter', 1, 1],
    ]);

    for (const made of own) await store.submissions.delete(partition(), made.id);

    expect(await sourceRows()).toEqual([['newsletter', 1, 1]]);
  });

  it('when one of two submissions of a source is deleted, then its row counts the other', async () => {
    const [first, second] = [fromSource('newsletter', 1), fromSource('newsletter', 2, 'partial')];
    await insert(first);
    await insert(second);

    await store.submissions.delete(partition(), first.id);

    expect(await sourceRows()).toEqual([['newsletter', 1, 0]]);
  });

  it('when a partial submission of a source is completed, then its row moves its count and stays', async () => {
    const made = fromSource('ads', 1, 'partial');
    await insert(made);

    await store.submissions.resume(partition(), made.id, (previous) => ({
      submission: { ...previous, status: 'completed', completed_at: at(5), updated_at: at(5) },
      searchText: '',
      emailAnswers: [],
    }));

    expect(await sourceRows()).toEqual([['ads', 1, 1]]);
  });

  it('when an earlier version left source rows at zero, then the migration deletes them and keeps the rows that count', async () => {
    await insert(fromSource('newsletter', 1));
    await store.foldAggregates?.();
    await storedRows(
      store,
      `INSERT INTO submission_source_days (form_id, environment, day, utm_source, started, completed) VALUES (?, 'live', ?, ?, 0, 0)`,
      target.id,
      '2031-01-01',
      'left.behind@example.org',
    );
    expect(await sourceRows()).toEqual([
      ['left.behind@example.org', 0, 0],
      ['newsletter', 1, 1],
    ]);

    await storedRows(store, kind === 'postgres' ? postgresMigration : sqliteMigration);

    expect(await sourceRows()).toEqual([['newsletter', 1, 1]]);
  });
});

describe('the SQLite tally of a group of changes', () => {
  it('when the changes to a source cancel out, then no row is written for it', async () => {
    const store = await createTestStore('sqlite');
    try {
      const workspaceId = await workspace(store);
      const target = form('tally');
      await store.forms.create({ form: target, workspaceId, environment: 'live' });
      const made = submission(target.id, at(1));
      const facts = { ...made, context: { ...made.context, utm: { ...made.context.utm, source: 'cancelled@example.org' } } };

      new FunnelTally()
        .count('live', facts, 1)
        .count('live', facts, -1)
        .write((store as Store & { db: Database.Database }).db);

      expect(await storedRows(store, 'SELECT utm_source FROM submission_source_days')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
