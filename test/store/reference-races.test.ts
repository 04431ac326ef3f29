/**
 * A write whose row refers to another one (a form filed in a folder, a delivery to an integration) while that other
 * row is deleted: the store refuses the write with a store error, or makes it without the reference, and never
 * lets the foreign key's violation out (the server would answer it with a 500).
 *
 * The check-then-write gap is closed at the write: both stores refuse a form filed in a folder that is gone
 * (`ReferenceMissing`). On PostgreSQL the delete can also be in flight while the write runs; those races are
 * forced here with a delete held open in a transaction of the test's own, so they happen every run.
 */
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dnsWebhookUrlPolicy } from '../../src/adapters/dns-resolver.js';
import type { Schema } from '../../src/contract.js';
import { createFolder, deleteFolder as deleteFolderAs } from '../../src/domain/folders/service.js';
import { createForm, deleteForm as deleteFormAs, updateForm } from '../../src/domain/forms/service.js';
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { authenticate } from '../../src/domain/keys/authenticate.js';
import { createApiKey } from '../../src/domain/keys/service.js';
import { createPublishableKey } from '../../src/domain/public/publishable-keys.js';
import type { Services } from '../../src/domain/services.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { newId } from '../../src/ids.js';
import { RecordNotFound, ReferenceMissing } from '../../src/store/errors.js';
import type { CircuitUpdate } from '../../src/store/integration-store.js';
import type { Outbox } from '../../src/store/outbox.js';
import { insertEvent } from '../../src/store/postgres/outbox.js';
import type { Store } from '../../src/store/types.js';
import { lockWaiters, until } from '../support/lock-waits.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';
import { apiKey, at, audit, event, form, integration, submission, workspace } from './conformance/fixtures.js';

const live = (workspaceId: string) => ({ workspaceId, environment: 'live' as const });

async function folderOf(store: Store, workspaceId: string): Promise<string> {
  const id = newId('fld');
  await store.folders.create({
    folder: { id, object: 'folder', name: 'Leads', test: false, form_count: 0, created_at: at(1), metadata: {} },
    ...live(workspaceId),
  });
  return id;
}

const deleteFolder = (store: Store, workspaceId: string, id: string) =>
  store.folders.delete(id, at(5), { folder: audit(workspaceId), revokedKey: () => audit(workspaceId) });

describe.each(storeKinds)('the %s store, when a folder is deleted after the caller checked it', (kind) => {
  let store: Store;
  let ws: string;
  beforeEach(async () => {
    store = await createTestStore(kind);
    ws = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  it('refuses to create a form in it (ReferenceMissing) and writes nothing', async () => {
    const folderId = await folderOf(store, ws);
    await deleteFolder(store, ws, folderId);
    const filed = form('filed', at(6), folderId);
    const refused = store.forms.create({ form: filed, ...live(ws) });
    await expect(refused).rejects.toBeInstanceOf(ReferenceMissing);
    await expect(refused).rejects.toMatchObject({ kind: 'folder', id: folderId });
    expect(await store.forms.get(ws, filed.id)).toBeUndefined();
  });

  it('refuses to move a form into it and leaves the form as it was', async () => {
    const folderId = await folderOf(store, ws);
    const loose = form('loose', at(2));
    await store.forms.create({ form: loose, ...live(ws) });
    await deleteFolder(store, ws, folderId);
    const moved = store.forms.update({ form: { ...loose, folder_id: folderId, version: 2 }, ...live(ws) }, { keepVersions: 100 });
    await expect(moved).rejects.toMatchObject({ name: 'ReferenceMissing', kind: 'folder', id: folderId });
    expect((await store.forms.get(ws, loose.id))?.form).toMatchObject({ folder_id: null, version: 1 });
  });
});

/** The use cases' services over the store, and the live admin key of a new business workspace, authenticated. */
async function signedIn(store: Store) {
  const services: Services = { store, now: () => new Date(), events: integrationEvents(), webhookUrls: dnsWebhookUrlPolicy() };
  const { live_admin_key: key } = await bootstrapWorkspace(services, { name: 'Acme', plan: 'business' });
  return { services, principal: await authenticate(services, `Bearer ${key}`, '127.0.0.1', { record() {} }) };
}

describe.each(storeKinds)(
  'use cases on the %s store, when the folder or form they name is deleted between the check and the write',
  (kind) => {
    let store: Store;
    afterEach(async () => {
      await store.close();
    });

    it('forms answer the 422 the folder check gives a folder that is gone, for a create and for a move', async () => {
      store = await createTestStore(kind);
      const { services, principal } = await signedIn(store);
      const folder = await createFolder(services, principal, { name: 'Leads' });
      const stale = await store.folders.get(principal.workspace.id, folder.id);
      const loose = await createForm(services, principal, { name: 'Loose' } as Schema<'FormCreate'>);
      await deleteFolderAs(services, principal, folder.id);
      // The check still finds the folder, as it did just before another request deleted it.
      const racing: Services = { ...services, store: { ...store, folders: { ...store.folders, get: async () => stale } } };
      const goneFolder = {
        status: 422,
        code: 'invalid_value',
        details: {
          errors: [{ location: 'body', pointer: '/folder_id', code: 'not_found', message: `no folder ${folder.id} in this workspace` }],
        },
      };
      await expect(createForm(racing, principal, { name: 'Filed', folder_id: folder.id } as Schema<'FormCreate'>)).rejects.toMatchObject(
        goneFolder,
      );
      await expect(updateForm(racing, principal, loose.id, { folder_id: folder.id })).rejects.toMatchObject(goneFolder);
    });

    it('keys answer the 422 the attachment check gives one that is gone, API keys and publishable keys alike', async () => {
      store = await createTestStore(kind);
      const { services, principal } = await signedIn(store);
      const folder = await createFolder(services, principal, { name: 'Leads' });
      const page = await createForm(services, principal, { name: 'Page' } as Schema<'FormCreate'>);
      const staleFolder = await store.folders.get(principal.workspace.id, folder.id);
      const staleForm = await store.forms.get(principal.workspace.id, page.id);
      await deleteFolderAs(services, principal, folder.id);
      await deleteFormAs(services, principal, page.id);
      // The checks still find both, as they did just before another request deleted them.
      const racing: Services = {
        ...services,
        store: {
          ...store,
          folders: { ...store.folders, get: async () => staleFolder },
          forms: { ...store.forms, get: async () => staleForm },
        },
      };
      const gone = (what: 'form' | 'folder', id: string) => ({
        status: 422,
        code: 'invalid_value',
        details: {
          errors: [
            { location: 'body', pointer: `/attachment/${what}_id`, code: 'not_found', message: `no ${what} ${id} in this workspace` },
          ],
        },
      });
      const onFolder = { type: 'folder', folder_id: folder.id } as const;
      const onForm = { type: 'form', form_id: page.id } as const;
      const apiKey = { name: 'Attached', environment: 'live', scope: 'read' } as const;
      await expect(createApiKey(racing, principal, { ...apiKey, attachment: onFolder })).rejects.toMatchObject(gone('folder', folder.id));
      await expect(createApiKey(racing, principal, { ...apiKey, attachment: onForm })).rejects.toMatchObject(gone('form', page.id));
      const publishable = { name: 'Site', environment: 'live' as const, allowed_origins: ['https://www.acme.example'] };
      await expect(createPublishableKey(racing, principal, { ...publishable, attachment: onFolder })).rejects.toMatchObject(
        gone('folder', folder.id),
      );
      await expect(createPublishableKey(racing, principal, { ...publishable, attachment: onForm })).rejects.toMatchObject(
        gone('form', page.id),
      );
      expect(await storedRows(store, "SELECT id FROM api_keys WHERE attachment_type <> 'workspace'")).toEqual([]);
      expect(await storedRows(store, 'SELECT id FROM publishable_keys')).toEqual([]);
    });
  },
);

describe('the postgres store, when a referred-to row is deleted while the write runs', () => {
  let store: Store & { pool: pg.Pool };
  let ws: string;
  /** A connection of the test's own, holding a delete open until `commit`. */
  let deleter: pg.PoolClient;
  beforeEach(async () => {
    store = (await createTestStore('postgres')) as Store & { pool: pg.Pool };
    ws = await workspace(store);
    deleter = await store.pool.connect();
  });
  afterEach(async () => {
    await deleter.query('ROLLBACK').catch(() => {});
    deleter.release();
    await store.close();
  });

  /** Starts `sql` in an open transaction: its row locks are held until `commit`. */
  async function holdDelete(sql: string, ...params: unknown[]): Promise<() => Promise<unknown>> {
    await deleter.query('BEGIN');
    await deleter.query(sql, params);
    return () => deleter.query('COMMIT');
  }

  /** Runs `write` until it waits on the held delete, then commits the delete and returns how the write ended. */
  async function raced<T>(write: () => Promise<T>, commit: () => Promise<unknown>) {
    const waitersBefore = await lockWaiters(store.pool);
    const outcome = write().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await until(async () => (await lockWaiters(store.pool)) > waitersBefore);
    await commit();
    return outcome;
  }

  async function hook(events: Schema<'Integration'>['events']): Promise<string> {
    const created = { ...integration(), events };
    await store.integrations.create({ integration: created, ...live(ws), signingSecret: 'whsec_secret' }, audit(ws));
    return created.id;
  }

  /** The deliveries queued to an integration (of one event, given its id). */
  const deliveriesOf = (integrationId: string, eventId?: string) =>
    storedRows(
      store,
      'SELECT id FROM deliveries WHERE integration_id = $1 AND ($2::text IS NULL OR event_id = $2)',
      integrationId,
      eventId ?? null,
    ) as Promise<Array<{ id: string }>>;

  const outboxOf =
    (...events: ReturnType<typeof event>[]): Outbox<void> =>
    () => ({ events: events.map((entry) => ({ event: entry, subscribers: { environments: ['live'], mock: false } })) });

  it('a form filed in a folder whose delete commits meanwhile is refused with ReferenceMissing', async () => {
    const folderId = await folderOf(store, ws);
    const commit = await holdDelete('DELETE FROM folders WHERE id = $1', folderId);
    const filed = form('filed', at(6), folderId);
    const outcome = await raced(() => store.forms.create({ form: filed, ...live(ws) }), commit);
    expect(outcome).toEqual({ error: new ReferenceMissing('folder', folderId) });
    expect(await store.forms.get(ws, filed.id)).toBeUndefined();
  });

  it("a key attached to a form that a transfer's accept moves meanwhile is refused with RecordNotFound", async () => {
    const page = form('page', at(2));
    await store.forms.create({ form: page, ...live(ws) });
    const other = await workspace(store);
    // The accept's move, held open: it locks the form's row as the accept does, then moves it.
    const commit = await holdDelete('UPDATE forms SET workspace_id = $2 WHERE id = $1', page.id, other);
    const attached = apiKey({ type: 'form', form_id: page.id });
    const outcome = await raced(
      () => store.apiKeys.create({ key: attached, workspaceId: ws, secretHash: Buffer.alloc(32) }, audit(ws)),
      commit,
    );
    expect(outcome).toEqual({ error: new RecordNotFound('form', page.id) });
    expect(await store.apiKeys.get(ws, attached.id)).toBeUndefined();
  });

  it('a submission whose webhook integration is deleted meanwhile is stored, with its events and no delivery to it', async () => {
    const page = form('page', at(2));
    await store.forms.create({ form: page, ...live(ws) });
    const integrationId = await hook(['submission.created']);
    const survivor = await hook(['submission.created']);
    const lead = submission(page.id, at(7));
    const created = { ...event(ws, 'submission.created'), formId: page.id, submissionId: lead.id };
    const commit = await holdDelete('DELETE FROM integrations WHERE id = $1', integrationId);
    const outcome = await raced(() => store.submissions.insert({ submission: lead, ...live(ws) }, outboxOf(created)), commit);
    expect(outcome).toEqual({ value: undefined });
    expect(await storedRows(store, 'SELECT id FROM submissions WHERE id = $1', lead.id)).toHaveLength(1);
    expect(await storedRows(store, 'SELECT id FROM events WHERE id = $1', created.id)).toHaveLength(1);
    expect(await storedRows(store, 'SELECT id FROM deliveries WHERE integration_id = $1', integrationId)).toEqual([]);
    expect(await deliveriesOf(survivor, created.id)).toHaveLength(1);
  });

  it('any other change whose event reaches an integration deleted meanwhile is made, with no delivery to it', async () => {
    const page = form('page', at(2));
    await store.forms.create({ form: page, ...live(ws) });
    const integrationId = await hook(['form.updated']);
    const survivor = await hook(['form.updated']);
    const updated = { ...event(ws, 'form.updated'), formId: page.id };
    const commit = await holdDelete('DELETE FROM integrations WHERE id = $1', integrationId);
    const outcome = await raced(
      () => store.forms.update({ form: { ...page, name: 'Renamed', version: 2 }, ...live(ws) }, { keepVersions: 100 }, outboxOf(updated)),
      commit,
    );
    expect(outcome).toEqual({ value: undefined });
    expect((await store.forms.get(ws, page.id))?.form.name).toBe('Renamed');
    expect(await storedRows(store, 'SELECT id FROM deliveries WHERE integration_id = $1', integrationId)).toEqual([]);
    expect(await deliveriesOf(survivor, updated.id)).toHaveLength(1);
  });

  it('an event published while an integration it reaches is deleted is stored, with no delivery to it', async () => {
    const integrationId = await hook(['submission.created']);
    const survivor = await hook(['submission.created']);
    const published = event(ws, 'submission.created');
    const commit = await holdDelete('DELETE FROM integrations WHERE id = $1', integrationId);
    const outcome = await raced(() => store.integrations.publish(published, { environments: ['live'], mock: false }), commit);
    expect(outcome).toEqual({ value: 1 });
    expect(await storedRows(store, 'SELECT id FROM events WHERE id = $1', published.id)).toHaveLength(1);
    expect(await storedRows(store, 'SELECT id FROM deliveries WHERE integration_id = $1', integrationId)).toEqual([]);
    expect(await deliveriesOf(survivor, published.id)).toHaveLength(1);
  });

  it('a dispatch to an integration deleted meanwhile is refused with RecordNotFound and stores nothing', async () => {
    const integrationId = await hook(['submission.created']);
    const sample = { ...event(ws, 'submission.created'), synthetic: true };
    const commit = await holdDelete('DELETE FROM integrations WHERE id = $1', integrationId);
    const outcome = await raced(
      () => store.integrations.dispatch(integrationId, sample, { newEvent: true, mock: false, at: at(8) }),
      commit,
    );
    expect(outcome).toEqual({ error: new RecordNotFound('integration', integrationId) });
    expect(await storedRows(store, 'SELECT id FROM events WHERE id = $1', sample.id)).toEqual([]);
  });

  it("a breaker's move whose event reaches an integration deleted meanwhile is made, with no delivery to it", async () => {
    const failing = await hook(['submission.created']);
    const integrationId = await hook(['integration.disabled']);
    const survivor = await hook(['integration.disabled']);
    await store.integrations.publish(event(ws, 'submission.created'), { environments: ['live'], mock: false });
    const [attempt] = await deliveriesOf(failing);
    const disabled = event(ws, 'integration.disabled');
    const circuit: CircuitUpdate = {
      next: (current) => ({ ...current, consecutiveFailures: current.consecutiveFailures + 1, enabled: false, disabledAt: at(9) }),
      outbox: () => ({ events: [{ event: disabled, subscribers: { environments: ['live'], mock: false } }] }),
    };
    const failed = {
      status: 'failed',
      url: 'https://hooks.example.com/in',
      responseStatus: 500,
      durationMs: 3,
      error: null,
      nextAttemptAt: null,
    } as const;
    const commit = await holdDelete('DELETE FROM integrations WHERE id = $1', integrationId);
    const outcome = await raced(() => store.integrations.recordAttempt(attempt!.id, failed, circuit), commit);
    expect(outcome).toMatchObject({ value: { before: { enabled: true }, after: { enabled: false, consecutiveFailures: 1 } } });
    expect(await storedRows(store, 'SELECT id FROM events WHERE id = $1', disabled.id)).toHaveLength(1);
    expect(await storedRows(store, 'SELECT id FROM deliveries WHERE integration_id = $1', integrationId)).toEqual([]);
    expect(await deliveriesOf(survivor, disabled.id)).toHaveLength(1);
  });

  it('a write waits for no integration its events do not reach, nor for an edit of one they reach', async () => {
    const page = form('page', at(2));
    await store.forms.create({ form: page, ...live(ws) });
    const elsewhere = await hook(['submission.created']);
    const reached = await hook(['form.updated']);
    // The test's transaction deletes an integration the event does not reach and edits (as `update` locks) the one it does.
    await holdDelete('DELETE FROM integrations WHERE id = $1', elsewhere);
    await deleter.query('SELECT 1 FROM integrations WHERE id = $1 FOR NO KEY UPDATE', [reached]);
    const updated = { ...event(ws, 'form.updated'), formId: page.id };
    let settled = false;
    const writing = store.forms
      .update({ form: { ...page, name: 'Renamed', version: 2 }, ...live(ws) }, { keepVersions: 100 }, outboxOf(updated))
      .finally(() => (settled = true));
    writing.catch(() => {});
    // Locking more than the reached rows, or locking them against edits, would hold the write until the test's commit.
    await until(async () => settled);
    await expect(writing).resolves.toBeUndefined();
    expect(await deliveriesOf(reached, updated.id)).toHaveLength(1);
  });

  it("an attempt's outcome recorded while a delete holds the integration waits without holding the delivery", async () => {
    const failing = await hook(['submission.created']);
    await store.integrations.publish(event(ws, 'submission.created'), { environments: ['live'], mock: false });
    const [attempt] = await deliveriesOf(failing);
    // The delete as integrations.delete makes it with an If-Match: the integration locked, then its deliveries.
    await deleter.query('BEGIN');
    await deleter.query('SELECT 1 FROM integrations WHERE id = $1 FOR UPDATE', [failing]);
    const waitersBefore = await lockWaiters(store.pool);
    const circuit: CircuitUpdate = { next: (current) => ({ ...current, consecutiveFailures: current.consecutiveFailures + 1 }) };
    const retried = { status: 'failed', url: 'https://hooks.example.com/in', responseStatus: 500, durationMs: 3, error: null } as const;
    const recording = store.integrations.recordAttempt(attempt!.id, { ...retried, nextAttemptAt: at(20) }, circuit).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await until(async () => (await lockWaiters(store.pool)) === waitersBefore + 1);
    // Had the recording locked the delivery before the integration, this would wait for it, and the two deadlock
    // (refused here after 0.5 s, before PostgreSQL's 1 s deadlock check picks one).
    await deleter.query("SET LOCAL lock_timeout = '500ms'");
    await deleter.query('DELETE FROM deliveries WHERE integration_id = $1', [failing]);
    await deleter.query('DELETE FROM integrations WHERE id = $1', [failing]);
    await deleter.query('COMMIT');
    expect(await recording).toEqual({ value: null });
    expect(await deliveriesOf(failing)).toEqual([]);
  });

  it('an integration pointed at a form the test-data reset holds waits for the form without holding the integration', async () => {
    const page = form('page', at(2));
    await store.forms.create({ form: page, ...live(ws) });
    const integrationId = await hook(['submission.created']);
    const record = (await store.integrations.get(ws, integrationId))!;
    // The reset's order: the forms locked, then the integrations.
    await deleter.query('BEGIN');
    await deleter.query('SELECT 1 FROM forms WHERE id = $1 FOR UPDATE', [page.id]);
    const waitersBefore = await lockWaiters(store.pool);
    const updating = store.integrations.update({ ...record, integration: { ...record.integration, form_id: page.id } }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await until(async () => (await lockWaiters(store.pool)) === waitersBefore + 1);
    // Had the update locked the integration before the form, this would wait for it, and the two deadlock.
    await deleter.query("SET LOCAL lock_timeout = '500ms'");
    await deleter.query('SELECT 1 FROM integrations WHERE id = $1 FOR UPDATE', [integrationId]);
    await deleter.query('COMMIT');
    expect(await updating).toEqual({ value: undefined });
    expect((await store.integrations.get(ws, integrationId))?.integration.form_id).toBe(page.id);
  });

  it("an integration deleted after the write locked it waits for the write and takes the write's deliveries with it", async () => {
    const page = form('page', at(2));
    await store.forms.create({ form: page, ...live(ws) });
    const integrationId = await hook(['form.updated']);
    const updated = { ...event(ws, 'form.updated'), formId: page.id };
    // The test's transaction holds the event's id: the write locks the integration, then waits to insert the event.
    await deleter.query('BEGIN');
    await insertEvent(deleter, updated);
    const waitersBefore = await lockWaiters(store.pool);
    const writing = store.forms
      .update({ form: { ...page, name: 'Renamed', version: 2 }, ...live(ws) }, { keepVersions: 100 }, outboxOf(updated))
      .then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    await until(async () => (await lockWaiters(store.pool)) === waitersBefore + 1);
    // A delete as integrations.delete makes it (its deliveries, then the row), on a connection of its own, left open
    // once done so that what the write committed can be seen before the delete commits.
    const remover = await store.pool.connect();
    try {
      await remover.query('BEGIN');
      await remover.query('DELETE FROM deliveries WHERE integration_id = $1', [integrationId]);
      const deleting = remover.query('DELETE FROM integrations WHERE id = $1', [integrationId]);
      // The delete waits for the write's lock on the integration.
      await until(async () => (await lockWaiters(store.pool)) === waitersBefore + 2);
      await deleter.query('ROLLBACK');
      expect(await writing).toEqual({ value: undefined });
      expect((await deleting).rowCount).toBe(1);
      // The write's delivery was committed after the delete had cleared the integration's deliveries ...
      expect(await deliveriesOf(integrationId, updated.id)).toHaveLength(1);
      await remover.query('COMMIT');
    } finally {
      await remover.query('ROLLBACK').catch(() => {});
      remover.release();
    }
    expect((await store.forms.get(ws, page.id))?.form.name).toBe('Renamed');
    expect(await storedRows(store, 'SELECT id FROM events WHERE id = $1', updated.id)).toHaveLength(1);
    expect(await storedRows(store, 'SELECT id FROM integrations WHERE id = $1', integrationId)).toEqual([]);
    // ... and goes with it, by the foreign key's cascade.
    expect(await storedRows(store, 'SELECT id FROM deliveries WHERE integration_id = $1', integrationId)).toEqual([]);
  });
});
