/**
 * The migration of the v1 rename (schema/submission-context.ts, both stores): rows stored before it keep their
 * respondent context under its new name, `metadata` starts empty everywhere, and submissions completed before it
 * get the best known completion time (their `submission.completed` event's, else `updated_at`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { submissionContextSchema as postgresMigration } from '../../src/store/postgres/schema/submission-context.js';
import { submissionContextSchema as sqliteMigration } from '../../src/store/sqlite/schema/submission-context.js';
import type { Store } from '../../src/store/types.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';
import { at, form, submission, workspace } from './conformance/fixtures.js';

/** Runs several statements at once, as a migration does. */
async function execute(store: Store, sql: string): Promise<void> {
  if ('db' in store) (store as unknown as { db: { exec(sql: string): void } }).db.exec(sql);
  else await (store as unknown as { pool: { query(sql: string): Promise<unknown> } }).pool.query(sql);
}

/** The schema as it was before the migration: the context stored as `metadata`, no completion time. */
const before = `
  ALTER TABLE submissions DROP COLUMN metadata;
  ALTER TABLE submissions DROP COLUMN completed_at;
  ALTER TABLE submissions RENAME COLUMN context TO metadata;
  ALTER TABLE forms DROP COLUMN metadata;
  ALTER TABLE folders DROP COLUMN metadata;
  ALTER TABLE integrations DROP COLUMN metadata;
`;

describe.each(storeKinds)('the %s store, migrating to context and metadata', (kind) => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('when rows were stored before the migration, then their context is kept, metadata is {} and completed_at is the best known', async () => {
    store = await createTestStore(kind);
    const workspaceId = await workspace(store);
    const owned = form('migrated', at(1));
    await store.forms.create({ form: owned, workspaceId, environment: 'live' });
    const withEvent = { ...submission(owned.id, at(10)), updated_at: at(50) };
    const withoutEvent = { ...submission(owned.id, at(20)), updated_at: at(40) };
    const partial = submission(owned.id, at(30), 'partial');
    for (const lead of [withEvent, withoutEvent, partial])
      await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
    await execute(store, before);
    // The event a completion sent, kept with the integrations' events: its time is the completion's. SQLite
    // generates `submission_id` from the body, as PostgreSQL did then; PostgreSQL's writers now set it
    // (schema/events-submission-id.ts), so this row is given what the expression gave it.
    const setsSubmissionId = kind === 'postgres';
    await storedRows(
      store,
      `INSERT INTO events (id, workspace_id, environment, type, form_id, body, created_at${setsSubmissionId ? ', submission_id' : ''})
       VALUES ('evt_migrated', ?, 'live', 'submission.completed', ?, ?, ?${setsSubmissionId ? ', ?' : ''})`,
      workspaceId,
      owned.id,
      JSON.stringify({ data: { object: { id: withEvent.id } } }),
      at(12),
      ...(setsSubmissionId ? [withEvent.id] : []),
    );

    await execute(store, kind === 'sqlite' ? sqliteMigration : postgresMigration);

    const read = async (id: string) => (await store!.submissions.get({ workspaceId, environment: 'live' }, id))!.submission;
    expect(await read(withEvent.id)).toMatchObject({ context: withEvent.context, metadata: {}, completed_at: at(12) });
    expect(await read(withoutEvent.id)).toMatchObject({ context: withoutEvent.context, metadata: {}, completed_at: at(40) });
    expect(await read(partial.id)).toMatchObject({ context: partial.context, metadata: {}, completed_at: null });
    expect((await store.forms.get(workspaceId, owned.id))!.form.metadata).toEqual({});
  });
});
