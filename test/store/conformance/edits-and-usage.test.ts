/**
 * One suite, every store: compare-and-set on forms and integrations (the write happens only while the stored
 * representation still has the tag the caller read, checked inside the write's transaction), a workspace's own
 * rate limits, and usage counts that several servers add to.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entityTagOf } from '../../../src/etag.js';
import { RecordNotFound, StoreConflict } from '../../../src/store/errors.js';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storeKinds } from '../../support/stores.js';
import { at, audit, form, integration, submission, workspace } from './fixtures.js';

describe.each(storeKinds)('the %s store', (kind) => {
  let store: Store;
  let workspaceId: string;
  beforeEach(async () => {
    store = await createTestStore(kind);
    workspaceId = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  describe('compare-and-set', () => {
    it('when a form is updated with the tag it has, then the write is made; with a stale tag, then StoreConflict and nothing changes', async () => {
      const first = form('cas');
      await store.forms.create({ form: first, workspaceId, environment: 'live' });
      const tag = entityTagOf(first);
      const second = { ...first, name: 'Second', version: 2, updated_at: at(5) };
      await store.forms.update({ form: second, workspaceId, environment: 'live' }, { keepVersions: 100, expectedTag: tag });
      const third = { ...first, name: 'Third', version: 3, updated_at: at(6) };
      const stale = store.forms.update({ form: third, workspaceId, environment: 'live' }, { keepVersions: 100, expectedTag: tag });
      await expect(stale).rejects.toEqual(new StoreConflict('changed_since_read'));
      expect((await store.forms.get(workspaceId, first.id))?.form).toEqual(second);
      expect((await store.forms.listVersions(first.id, { limit: 10 })).data.map((version) => version.version)).toEqual([2, 1]);
    });

    it('when two updates race with the same tag, then exactly one is made', async () => {
      const first = form('race');
      await store.forms.create({ form: first, workspaceId, environment: 'live' });
      const tag = entityTagOf(first);
      const outcomes = await Promise.allSettled(
        ['A', 'B'].map((name) =>
          store.forms.update(
            { form: { ...first, name, version: 2, updated_at: at(7) }, workspaceId, environment: 'live' },
            { keepVersions: 100, expectedTag: tag },
          ),
        ),
      );
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    });

    it('when an update records an audit event, then it is stored with the change', async () => {
      const first = form('audited');
      await store.forms.create({ form: first, workspaceId, environment: 'live' });
      const restored = { ...first, version: 2, updated_at: at(8) };
      await store.forms.update(
        { form: restored, workspaceId, environment: 'live' },
        { keepVersions: 100, audit: audit(workspaceId, 'form.version_restored') },
      );
      expect((await store.auditEvents.list(workspaceId, { type: 'form.version_restored' }, { limit: 10 })).data).toHaveLength(1);
    });

    it('when a form is deleted with a stale tag, then StoreConflict and it stays; with its tag, then it goes with its audit event', async () => {
      const kept = form('kept');
      await store.forms.create({ form: kept, workspaceId, environment: 'live' });
      const revokedKey = () => audit(workspaceId, 'api_key.revoked');
      const deleteWith = (expectedTag: string) =>
        store.forms.delete(workspaceId, kept.id, at(9), { form: audit(workspaceId, 'form.deleted'), revokedKey }, undefined, {
          expectedTag,
        });
      await expect(deleteWith('"AAAAAAAAAAAAAAAAAAAAAA"')).rejects.toEqual(new StoreConflict('changed_since_read'));
      expect(await store.forms.get(workspaceId, kept.id)).toBeDefined();
      await deleteWith(entityTagOf(kept));
      expect(await store.forms.get(workspaceId, kept.id)).toBeUndefined();
      expect((await store.auditEvents.list(workspaceId, { type: 'form.deleted' }, { limit: 10 })).data).toHaveLength(1);
    });

    it('when an integration is updated with its tag, then the write is made; stale, then StoreConflict; gone, then RecordNotFound', async () => {
      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
        audit(workspaceId, 'integration.created'),
      );
      const record = { workspaceId, environment: 'live' as const, signingSecret: 'whsec_1' };
      const paused = { ...hook, enabled: false, updated_at: at(10) };
      await store.integrations.update({ ...record, integration: paused }, { expectedTag: entityTagOf(hook) });
      await expect(
        store.integrations.update({ ...record, integration: { ...hook, description: 'x' } }, { expectedTag: entityTagOf(hook) }),
      ).rejects.toEqual(new StoreConflict('changed_since_read'));
      expect((await store.integrations.get(workspaceId, hook.id))?.integration).toEqual(paused);
      await store.integrations.delete(hook.id, audit(workspaceId, 'integration.deleted'));
      await expect(
        store.integrations.update({ ...record, integration: paused }, { expectedTag: entityTagOf(paused) }),
      ).rejects.toBeInstanceOf(RecordNotFound);
    });

    it('when an integration is deleted with a stale tag, then StoreConflict and it stays; with its tag, then it goes', async () => {
      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
        audit(workspaceId, 'integration.created'),
      );
      const deleteWith = (expectedTag: string) =>
        store.integrations.delete(hook.id, audit(workspaceId, 'integration.deleted'), { expectedTag });
      await expect(deleteWith('"AAAAAAAAAAAAAAAAAAAAAA"')).rejects.toEqual(new StoreConflict('changed_since_read'));
      expect((await store.integrations.get(workspaceId, hook.id))?.integration).toEqual(hook);
      await deleteWith(entityTagOf(hook));
      expect(await store.integrations.get(workspaceId, hook.id)).toBeUndefined();
      await expect(deleteWith(entityTagOf(hook))).rejects.toBeInstanceOf(RecordNotFound);
    });
  });

  describe('workspace rate limits', () => {
    it('when limits are set and cleared, then the workspace reads them back, and each change is audited', async () => {
      expect((await store.workspaces.get(workspaceId))?.rateLimits).toBeNull();
      const change = audit(workspaceId, 'workspace.rate_limits_changed');
      const set = await store.workspaces.setRateLimits(workspaceId, { perKeyPerSecond: 500, perWorkspacePerMinute: 60_000 }, change);
      expect(set?.rateLimits).toEqual({ perKeyPerSecond: 500, perWorkspacePerMinute: 60_000 });
      expect((await store.workspaces.get(workspaceId))?.rateLimits).toEqual({ perKeyPerSecond: 500, perWorkspacePerMinute: 60_000 });
      await store.workspaces.setRateLimits(workspaceId, null, change);
      expect((await store.workspaces.get(workspaceId))?.rateLimits).toBeNull();
      expect((await store.auditEvents.list(workspaceId, { type: 'workspace.rate_limits_changed' }, { limit: 10 })).data).toHaveLength(2);
      expect(await store.workspaces.setRateLimits('ws_AAAAAAAAAAAAAAAAAAAAAAAA', null, change)).toBeUndefined();
    });
  });

  describe('usage', () => {
    const january = { month: '2031-01', start: '2031-01-01T00:00:00.000Z', end: '2031-02-01T00:00:00.000Z' };

    it('when servers add counts at once, then the month holds their sum; a month nobody counted reads 0', async () => {
      expect(await store.usage.figures(workspaceId, january)).toEqual({ submissions: 0, apiRequests: 0, webhookDeliveries: 0 });
      await Promise.all(
        [1, 2, 3, 4].map((count) =>
          store.usage.addApiRequests([
            { workspaceId, month: '2031-01', count },
            { workspaceId, month: '2030-12', count: 10 },
          ]),
        ),
      );
      expect((await store.usage.figures(workspaceId, january)).apiRequests).toBe(10);
      expect(
        (await store.usage.figures(workspaceId, { month: '2030-12', start: '2030-12-01T00:00:00.000Z', end: january.start })).apiRequests,
      ).toBe(40);
    });

    it('when live and test submissions exist in and out of the month, then only the live ones of the month count', async () => {
      const metered = form('metered');
      await store.forms.create({ form: metered, workspaceId, environment: 'live' });
      await store.submissions.insert({ submission: submission(metered.id, at(20)), workspaceId, environment: 'live' });
      await store.submissions.insert({ submission: submission(metered.id, at(21)), workspaceId, environment: 'test' });
      await store.submissions.insert({ submission: submission(metered.id, '2030-12-31T23:59:59.999Z'), workspaceId, environment: 'live' });
      expect((await store.usage.figures(workspaceId, january)).submissions).toBe(1);
    });
  });
});
