/**
 * "Reset test data" on PostgreSQL deletes a workspace's test rows children first. A submission create in flight holds
 * its form's row (`FOR SHARE`) until it commits, and its new row is invisible to the reset's delete of submissions: a
 * reset that reached the forms before that create committed would then fail on the new child (23503, a 500). The
 * reset locks the parents first, so it waits for the create and deletes its row too. The same holds one level up: a
 * form create filed in a test folder holds the folder, and its form is not among the forms the reset locked. Held
 * mid-way on purpose (the holder plays the create), each race happens every time instead of now and then.
 */
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import type { Store } from '../../src/store/types.js';
import { lockWaiters, until } from '../support/lock-waits.js';
import { createTestStore, storedRows } from '../support/stores.js';
import { at, audit, form, integration, submission, workspace } from './conformance/fixtures.js';

/** A form create as its row lands: a copy of form $1 with id (and slug) $2, filed in folder $3. */
const fileCopyOf = `INSERT INTO forms SELECT * FROM jsonb_populate_record(NULL::forms,
  (SELECT to_jsonb(f) || jsonb_build_object('id', $2::text, 'slug', $2::text, 'folder_id', $3::text) FROM forms f WHERE id = $1))`;

describe('the postgres store, when a reset of test data meets a create in flight', () => {
  let store: Store;
  let owner: string;
  beforeEach(async () => {
    store = await createTestStore('postgres');
    owner = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  const pool = () => (store as unknown as { pool: pg.Pool }).pool;
  const waiting = () => lockWaiters(pool());

  it('then the reset waits for the create, succeeds, and leaves none of the test rows', async () => {
    const testForm = form('reset-race');
    await store.forms.create({ form: testForm, workspaceId: owner, environment: 'test' });
    const earlier = submission(testForm.id, at(10));
    await store.submissions.insert({ submission: earlier, workspaceId: owner, environment: 'test' });

    // The holder does what a create does in its one statement: holds the form, then writes a submission of it.
    const holder = await pool().connect();
    const inFlight = newId('sub');
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM forms WHERE id = $1 FOR SHARE', [testForm.id]);
      await holder.query(
        `INSERT INTO submissions SELECT * FROM jsonb_populate_record(NULL::submissions,
           (SELECT to_jsonb(s) || jsonb_build_object('id', $2::text) FROM submissions s WHERE id = $1))`,
        [earlier.id, inFlight],
      );
      const resetting = store.resetTestData(owner, audit(owner, 'test_data.reset'));
      resetting.catch(() => {});
      // Without the lock taken first, the reset deletes the submissions it sees and then waits at the form.
      await until(async () => (await waiting()) === 1);
      await holder.query('COMMIT');
      const deleted = await resetting;
      expect(deleted).toMatchObject({ forms: 1, submissions: 2 });
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
    }
    expect(await storedRows(store, 'SELECT id FROM submissions WHERE form_id = $1', testForm.id)).toEqual([]);
    expect(await storedRows(store, 'SELECT id FROM forms WHERE id = $1', testForm.id)).toEqual([]);
  });

  it('then a form filed in a test folder by a create in flight is waited for and deleted with its folder', async () => {
    const folderId = newId('fld');
    await store.folders.create({
      folder: { id: folderId, object: 'folder', name: 'Leads', test: true, form_count: 0, created_at: at(1), metadata: {} },
      workspaceId: owner,
      environment: 'test',
    });
    const existing = form('reset-race-existing');
    await store.forms.create({ form: existing, workspaceId: owner, environment: 'test' });

    // The holder does what a form create does: files a new form in the folder, whose foreign key holds the folder.
    const holder = await pool().connect();
    const inFlight = newId('form');
    try {
      await holder.query('BEGIN');
      await holder.query(fileCopyOf, [existing.id, inFlight, folderId]);
      const resetting = store.resetTestData(owner, audit(owner, 'test_data.reset'));
      resetting.catch(() => {});
      // Without the folders' lock, the reset deletes the forms it sees and then waits at the folder's delete.
      await until(async () => (await waiting()) === 1);
      await holder.query('COMMIT');
      const deleted = await resetting;
      expect(deleted).toMatchObject({ forms: 2, folders: 1 });
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
    }
    expect(await storedRows(store, 'SELECT id FROM forms WHERE workspace_id = $1', owner)).toEqual([]);
    expect(await storedRows(store, 'SELECT id FROM folders WHERE id = $1', folderId)).toEqual([]);
  });

  it("then a test folder made after its lock, with a form being filed in it, is not the reset's and stays", async () => {
    const existing = form('reset-race-before');
    await store.forms.create({ form: existing, workspaceId: owner, environment: 'test' });
    const hook = integration('test');
    await store.integrations.create({ integration: hook, workspaceId: owner, environment: 'test', signingSecret: 'whsec_x' }, audit(owner));
    // The pause: a writer holding the test integration, which the reset locks after the forms and folders.
    const pause = await pool().connect();
    const holder = await pool().connect();
    const laterFolder = newId('fld');
    const laterForm = newId('form');
    try {
      await pause.query('BEGIN');
      await pause.query('SELECT 1 FROM integrations WHERE id = $1 FOR KEY SHARE', [hook.id]);
      let settled = false;
      const resetting = store.resetTestData(owner, audit(owner, 'test_data.reset')).finally(() => (settled = true));
      resetting.catch(() => {});
      await until(async () => (await waiting()) === 1);
      // Past the reset's locks: a folder made, and a form being filed in it (uncommitted, holding the folder).
      await store.folders.create({
        folder: { id: laterFolder, object: 'folder', name: 'Later', test: true, form_count: 0, created_at: at(2), metadata: {} },
        workspaceId: owner,
        environment: 'test',
      });
      await holder.query('BEGIN');
      await holder.query(fileCopyOf, [existing.id, laterForm, laterFolder]);
      await pause.query('COMMIT');
      // Deleting by a predicate read now, the reset would reach the later folder and wait for the form's commit.
      await until(async () => settled || (await waiting()) === 1);
      await holder.query('COMMIT');
      expect(await resetting).toMatchObject({ forms: 1, folders: 0, integrations: 1 });
    } finally {
      for (const client of [pause, holder]) {
        await client.query('ROLLBACK').catch(() => {});
        client.release();
      }
    }
    expect(await storedRows(store, 'SELECT id FROM forms WHERE workspace_id = $1', owner)).toEqual([{ id: laterForm }]);
    expect(await storedRows(store, 'SELECT id FROM folders WHERE workspace_id = $1', owner)).toEqual([{ id: laterFolder }]);
  });
});
