/**
 * One suite, every store: what the service relies on from persistence (round trips, keyset pages, cascades,
 * the test-data reset) and what must hold when two requests (or two processes) race (idempotency claims,
 * the last admin, delivery leases, aggregate counts). A store that passes this suite can back the API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attachment, Environment } from '../../../src/contract.js';
import { newId } from '../../../src/ids.js';
import { StoreConflict } from '../../../src/store/errors.js';
import type { EventFilter } from '../../../src/store/event-store.js';
import type { CircuitState, EventRecord } from '../../../src/store/integration-store.js';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storeKinds } from '../../support/stores.js';
import { apiKey, at, audit, event, form, integration, submission, workspace } from './fixtures.js';

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
  const live = () => ({ workspaceId, environments: ['live'] as const, attachment: { type: 'workspace' as const } });

  describe('round trips', () => {
    it('when records are created, then they read back exactly as written (JSON, flags, timestamps and hashes included)', async () => {
      const written = form('contact');
      await store.forms.create({ form: written, workspaceId, environment: 'live' });
      expect(await store.forms.get(workspaceId, written.id)).toEqual({ form: written, workspaceId, environment: 'live' });

      const key = apiKey({ type: 'form', form_id: written.id });
      const secretHash = Buffer.from('00ff10'.repeat(10), 'hex');
      await store.apiKeys.create({ key, workspaceId, secretHash }, audit(workspaceId, 'api_key.created'));
      expect(await store.apiKeys.findBySecretHash(secretHash)).toEqual({
        key,
        workspaceId,
        secretHash,
        workspace: await store.workspaces.get(workspaceId),
      });

      const lead = submission(written.id, at(10));
      await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
      expect(await store.submissions.get({ workspaceId, environment: 'live' }, lead.id)).toEqual({
        submission: lead,
        workspaceId,
        environment: 'live',
        startedFormVersion: lead.form_version,
      });

      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
        audit(workspaceId, 'integration.created'),
      );
      expect(await store.integrations.get(workspaceId, hook.id)).toEqual({
        integration: hook,
        workspaceId,
        environment: 'live',
        signingSecret: 'whsec_1',
      });
      const sent = event(workspaceId);
      expect(await store.integrations.publish(sent, { environments: ['live'], mock: false })).toBe(1);
      // The body is kept byte for byte: every attempt signs exactly these bytes.
      expect((await store.events.get(workspaceId, 'live', sent.id))?.body).toBe(sent.body);
    });

    it('when a form is updated, then each version keeps its own snapshot', async () => {
      const first = form('contact');
      await store.forms.create({ form: first, workspaceId, environment: 'live' });
      const second = { ...first, name: 'Renamed', version: 2, updated_at: at(5) };
      await store.forms.update({ form: second, workspaceId, environment: 'live' }, { keepVersions: 100 });
      expect((await store.forms.get(workspaceId, first.id))?.form).toEqual(second);
      expect((await store.forms.getVersion(first.id, 1))?.name).toBe('Form contact');
      expect((await store.forms.listVersions(first.id, { limit: 10 })).data.map((version) => version.version)).toEqual([2, 1]);
    });
  });

  describe('keyset pages', () => {
    it('when a list is paged forwards and backwards with cursors, then every row appears once, newest first', async () => {
      const created = [];
      // Two rows share each instant, so the id breaks the tie.
      for (let index = 0; index < 7; index++) {
        const record = form(`form-${index}`, at(10 + Math.floor(index / 2)));
        await store.forms.create({ form: record, workspaceId, environment: 'live' });
        created.push(record);
      }
      const expected = [...created]
        .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
        .map((record) => record.id);

      const forwards: string[] = [];
      let page = await store.forms.list(live(), {}, { limit: 3 });
      forwards.push(...page.data.map((row) => row.id));
      while (page.hasMore) {
        page = await store.forms.list(live(), {}, { limit: 3, startingAfter: forwards.at(-1) });
        forwards.push(...page.data.map((row) => row.id));
      }
      expect(forwards).toEqual(expected);

      const backwards = await store.forms.list(live(), {}, { limit: 3, endingBefore: expected[6] });
      expect(backwards).toEqual({ data: expect.any(Array), hasMore: true });
      expect(backwards.data.map((row) => row.id)).toEqual(expected.slice(3, 6));
      const first = await store.forms.list(live(), {}, { limit: 3, endingBefore: expected[2] });
      expect(first.data.map((row) => row.id)).toEqual(expected.slice(0, 2));
      expect(first.hasMore).toBe(false);
    });

    it("when a cursor names another workspace's row, then the store refuses it as InvalidCursor", async () => {
      const other = await workspace(store);
      const foreign = form('foreign');
      await store.forms.create({ form: foreign, workspaceId: other, environment: 'live' });
      await expect(store.forms.list(live(), {}, { limit: 3, startingAfter: foreign.id })).rejects.toMatchObject({
        name: 'InvalidCursor',
        parameter: 'starting_after',
      });
    });

    it('when submissions are filtered, then the filters and the cursor combine', async () => {
      const record = form('leads');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const leads = [submission(record.id, at(20)), submission(record.id, at(21), 'partial'), submission(record.id, at(22))];
      for (const lead of leads) await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
      const partition = { workspaceId, environment: 'live' as const, attachment: { type: 'workspace' as const } };
      const completed = await store.submissions.list(partition, { status: 'completed', createdGte: at(20) }, { limit: 1 });
      expect(completed.data.map((row) => row.id)).toEqual([leads[2]!.id]);
      const next = await store.submissions.list(partition, { status: 'completed' }, { limit: 1, startingAfter: leads[2]!.id });
      expect(next).toEqual({ data: [expect.objectContaining({ id: leads[0]!.id })], hasMore: false });
    });
  });

  describe('the events feed', () => {
    const partition = (attachment: Attachment = { type: 'workspace' }) => ({ workspaceId, environment: 'live' as const, attachment });
    const stored = async (type: EventRecord['type'], second: number, formId: string | null = null, environment: Environment = 'live') => {
      const record = { ...event(workspaceId, type, environment), createdAt: at(second), formId };
      await store.integrations.publish(record, { environments: [environment], mock: false });
      return record;
    };

    it('when events are stored with no subscriber, then they are listed newest first, filtered by types, range and attachment', async () => {
      const folder = {
        id: newId('fld'),
        object: 'folder' as const,
        name: 'F',
        test: false,
        form_count: 0,
        created_at: at(1),
        metadata: {},
      };
      await store.folders.create({ folder, workspaceId, environment: 'live' });
      const inFolder = form('in-folder', at(1), folder.id);
      await store.forms.create({ form: inFolder, workspaceId, environment: 'live' });
      const created = await stored('form.created', 10, inFolder.id);
      const updated = await stored('form.updated', 11, 'form_elsewhere');
      const ping = await stored('integration.ping', 12);
      await stored('form.created', 13, null, 'test');
      const other = await workspace(store);
      await store.integrations.publish({ ...event(other), createdAt: at(14) }, { environments: ['live'], mock: false });

      const ids = async (filter: EventFilter, attachment?: Attachment) =>
        (await store.events.list(partition(attachment), filter, { limit: 10 })).data.map((record) => record.id);
      expect(await ids({})).toEqual([ping.id, updated.id, created.id]);
      expect(await ids({ types: ['form.created', 'integration.ping'] })).toEqual([ping.id, created.id]);
      expect(await ids({ createdGte: at(11), createdLt: at(12) })).toEqual([updated.id]);
      expect(await ids({}, { type: 'form', form_id: inFolder.id })).toEqual([created.id]);
      expect(await ids({}, { type: 'folder', folder_id: folder.id })).toEqual([created.id]);
      const page = await store.events.list(partition(), {}, { limit: 2 });
      expect(page.hasMore).toBe(true);
      const rest = await store.events.list(partition(), {}, { limit: 2, startingAfter: page.data[1]!.id });
      expect(rest).toEqual({ data: [created], hasMore: false });
      expect(await store.events.get(workspaceId, 'live', created.id)).toEqual(created);
      expect(await store.events.get(workspaceId, 'test', created.id)).toBeUndefined();
      expect(await store.events.get(other, 'live', created.id)).toBeUndefined();
    });

    it('when events are purged, then the oldest go first, at most the limit, and one with an attempt pending stays', async () => {
      await store.integrations.create(
        { integration: { ...integration(), events: ['submission.created'] }, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
        audit(workspaceId, 'integration.created'),
      );
      const old = [await stored('form.created', 1), await stored('form.created', 2), await stored('form.created', 3)];
      const pending = await stored('submission.created', 4);
      const young = await stored('form.created', 30);
      expect(await store.events.purgeBefore(at(20), 2)).toBe(2);
      expect(await store.events.get(workspaceId, 'live', old[0]!.id)).toBeUndefined();
      expect(await store.events.get(workspaceId, 'live', old[2]!.id)).toBeDefined();
      expect(await store.events.purgeBefore(at(20), 10)).toBe(1);
      expect(await store.events.get(workspaceId, 'live', pending.id)).toBeDefined();
      expect(await store.events.get(workspaceId, 'live', young.id)).toBeDefined();
    });
  });

  describe('signing-secret rotation', () => {
    const claim = (now: string) => store.integrations.claimDue({ now, leaseUntil: now, limit: 10, perIntegration: 10, perWorkspace: 10 });

    it('when a secret is rotated, then the replaced one is kept until its expiry, a second rotation drops the oldest, and the purge forgets it', async () => {
      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_a' },
        audit(workspaceId, 'integration.created'),
      );
      const rotation = (secret: string, previousExpiresAt: string | null, second: number) =>
        store.integrations.rotateSecret(
          hook.id,
          { secret, hint: `whsec_…${secret.slice(-4)}`, previousExpiresAt, at: at(second) },
          audit(workspaceId, 'integration.secret_rotated'),
        );

      const record = await rotation('whsec_b', at(100), 10);
      expect(record).toMatchObject({ signingSecret: 'whsec_b', integration: { secret_hint: 'whsec_…ec_b', updated_at: at(10) } });
      await store.integrations.publish(event(workspaceId), { environments: ['live'], mock: false });
      expect((await claim(at(20)))[0]!.integration).toMatchObject({
        signingSecret: 'whsec_b',
        previousSecret: { secret: 'whsec_a', expiresAt: at(100) },
      });

      await rotation('whsec_c', at(200), 30);
      await store.integrations.publish(event(workspaceId), { environments: ['live'], mock: false });
      expect((await claim(at(40))).map((due) => due.integration.previousSecret)).toContainEqual({ secret: 'whsec_b', expiresAt: at(200) });

      expect(await store.integrations.purgeExpiredSecrets(at(199))).toBe(0);
      expect(await store.integrations.purgeExpiredSecrets(at(200))).toBe(1);
      await store.integrations.publish(event(workspaceId), { environments: ['live'], mock: false });
      expect((await claim(at(300)))[0]!.integration).toMatchObject({ signingSecret: 'whsec_c', previousSecret: null });

      await rotation('whsec_d', null, 40);
      expect((await store.integrations.get(workspaceId, hook.id))?.signingSecret).toBe('whsec_d');
      const log = await store.auditEvents.list(workspaceId, { type: 'integration.secret_rotated' }, { limit: 10 });
      expect(log.data).toHaveLength(3);
    });

    it('when the integration is gone, then rotating it is RecordNotFound and records nothing', async () => {
      await expect(
        store.integrations.rotateSecret(
          'int_gone',
          { secret: 'whsec_x', hint: 'whsec_…ec_x', previousExpiresAt: null, at: at(1) },
          audit(workspaceId, 'integration.secret_rotated'),
        ),
      ).rejects.toMatchObject({ name: 'RecordNotFound' });
      expect((await store.auditEvents.list(workspaceId, {}, { limit: 10 })).data).toEqual([]);
    });

    it('when an integration is updated or deleted with an audit event, then the event is recorded with the change', async () => {
      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_a' },
        audit(workspaceId, 'integration.created'),
      );
      await store.integrations.update(
        { integration: { ...hook, description: 'x' }, workspaceId, environment: 'live', signingSecret: 'whsec_a' },
        { audit: audit(workspaceId, 'integration.updated') },
      );
      await store.integrations.delete(hook.id, audit(workspaceId, 'integration.deleted'));
      const types = (await store.auditEvents.list(workspaceId, {}, { limit: 10 })).data.map((entry) => entry.type).sort();
      expect(types).toEqual(['integration.created', 'integration.deleted', 'integration.updated']);
      expect(await store.integrations.get(workspaceId, hook.id)).toBeUndefined();
    });
  });

  describe('cascades', () => {
    it('when a form is deleted, then its submissions, aggregates and versions go and its attached keys are revoked', async () => {
      const record = form('doomed');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const key = apiKey({ type: 'form', form_id: record.id });
      await store.apiKeys.create({ key, workspaceId, secretHash: Buffer.alloc(32, 7) }, audit(workspaceId, 'api_key.created'));
      const lead = submission(record.id, at(30));
      await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
      const range = { formId: record.id, environment: 'live' as const, from: '2031-01-01', to: '2031-01-01', topSources: 20 };
      expect((await store.submissions.funnel(range)).days).toEqual([
        { day: '2031-01-01', started: 1, completed: 1, scoreSum: 25, scoreCount: 1 },
      ]);

      await store.forms.delete(workspaceId, record.id, at(40), { revokedKey: () => audit(workspaceId, 'api_key.revoked') });

      expect(await store.forms.get(workspaceId, record.id)).toBeUndefined();
      expect(await store.submissions.get({ workspaceId, environment: 'live' }, lead.id)).toBeUndefined();
      expect(await store.submissions.funnel(range)).toEqual({
        days: [],
        steps: [],
        grades: [],
        sources: { top: [], other: { sources: 0, started: 0, completed: 0 } },
      });
      expect(await store.forms.getVersion(record.id, 1)).toBeUndefined();
      expect((await store.apiKeys.get(workspaceId, key.id))?.key).toMatchObject({
        status: 'revoked',
        revoked_at: at(40),
        revocation_cause: 'form_deleted',
      });
      const audited = await store.auditEvents.list(workspaceId, { type: 'api_key.revoked' }, { limit: 10 });
      expect(audited.data).toHaveLength(1);
    });

    it('when test data is reset, then every test-mode row goes, the counts say how many, and live rows stay', async () => {
      const liveForm = form('live');
      const testForm = { ...form('sandbox'), test: true };
      await store.forms.create({ form: liveForm, workspaceId, environment: 'live' });
      await store.forms.create({ form: testForm, workspaceId, environment: 'test' });
      await store.submissions.insert({ submission: submission(liveForm.id, at(50)), workspaceId, environment: 'live' });
      await store.submissions.insert({ submission: { ...submission(testForm.id, at(50)), test: true }, workspaceId, environment: 'test' });
      await store.submissions.insert({ submission: { ...submission(testForm.id, at(51)), test: true }, workspaceId, environment: 'test' });
      const hook = integration('test');
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'test', signingSecret: 'whsec_t' },
        audit(workspaceId, 'integration.created'),
      );
      await store.integrations.publish(event(workspaceId, 'form.created', 'test'), { environments: ['test'], mock: false });

      expect(await store.resetTestData(workspaceId, audit(workspaceId, 'test_data.reset'))).toEqual({
        forms: 1,
        folders: 0,
        submissions: 2,
        integrations: 1,
        integration_logs: 1,
      });
      expect(await store.forms.get(workspaceId, testForm.id)).toBeUndefined();
      expect(await store.forms.get(workspaceId, liveForm.id)).toBeDefined();
      const partition = { workspaceId, environment: 'live' as const, attachment: { type: 'workspace' as const } };
      expect((await store.submissions.list(partition, {}, { limit: 10 })).data).toHaveLength(1);
    });
  });

  describe('list', () => {
    it('when a listed submission is changed or deleted, then the next list shows it as it is now', async () => {
      const record = form('listed');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const [older, newer] = [submission(record.id, at(50), 'partial'), submission(record.id, at(51), 'partial')];
      for (const lead of [older, newer]) await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
      const partition = { workspaceId, environment: 'live' as const, attachment: { type: 'workspace' as const } };
      const list = async () => (await store.submissions.list(partition, {}, { limit: 10 })).data;
      expect(await list()).toEqual([newer, older]);
      // Read twice, as a polling dashboard would, before each change.
      expect(await list()).toEqual([newer, older]);
      const { submission: resumed } = await store.submissions.resume(partition, older.id, (current) => ({
        submission: { ...current, status: 'completed', score: 40, updated_at: at(55) },
        searchText: '',
      }));
      expect(await list()).toEqual([newer, resumed]);
      await store.submissions.delete(partition, newer.id);
      expect(await list()).toEqual([resumed]);
    });
  });

  describe('resume', () => {
    const day = { environment: 'live' as const, from: '2031-01-01', to: '2031-01-01', topSources: 20 };

    it('when a partial submission is resumed to completed, then it is stored as changed and moves in every aggregate once', async () => {
      const record = form('resumable');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const lead = submission(record.id, at(50), 'partial');
      await store.submissions.insert({ submission: lead, workspaceId, environment: 'live', startedFormVersion: 1 });
      const result = await store.submissions.resume({ workspaceId, environment: 'live' }, lead.id, (current) => ({
        submission: {
          ...current,
          status: 'completed',
          visited_steps: ['start', 'end'],
          answers: { ...current.answers, extra: 'yes' },
          score: 40,
          grade: 'A',
          form_version: 1,
          updated_at: at(55),
        },
        searchText: 'yes',
      }));
      expect(result.previous).toEqual(lead);
      expect(result.submission).toMatchObject({
        status: 'completed',
        score: 40,
        grade: 'A',
        updated_at: at(55),
        created_at: lead.created_at,
      });
      expect((await store.submissions.get({ workspaceId, environment: 'live' }, lead.id))?.submission).toEqual(result.submission);

      const totals = await store.submissions.funnel({ formId: record.id, ...day });
      expect(totals.days).toEqual([{ day: '2031-01-01', started: 1, completed: 1, scoreSum: 40, scoreCount: 1 }]);
      expect(totals.steps.sort((a, b) => a.stepId.localeCompare(b.stepId))).toEqual([
        { stepId: 'end', reached: 1, droppedOff: 0 },
        { stepId: 'start', reached: 1, droppedOff: 0 },
      ]);
      expect(totals.grades.filter((grade) => grade.completed !== 0)).toEqual([{ grade: 'A', completed: 1 }]);
      expect(totals.sources.top).toEqual([{ source: 'newsletter', started: 1, completed: 1 }]);
    });

    it('when the change refuses, then nothing is written; when the submission is gone, then RecordNotFound', async () => {
      const record = form('refused');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const lead = submission(record.id, at(50), 'partial');
      await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
      await expect(
        store.submissions.resume({ workspaceId, environment: 'live' }, lead.id, () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect((await store.submissions.get({ workspaceId, environment: 'live' }, lead.id))?.submission).toEqual(lead);
      await expect(
        store.submissions.resume({ workspaceId, environment: 'live' }, newId('sub'), (current) => ({
          submission: current,
          searchText: '',
        })),
      ).rejects.toMatchObject({
        name: 'RecordNotFound',
      });
    });

    it("when resumes of one submission race, then each sees the other's result", async () => {
      const record = form('raced');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const lead = submission(record.id, at(50), 'partial');
      await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
      const refs = Array.from({ length: 8 }, (_, index) => `ref_${index}`);
      await Promise.all(
        refs.map((ref) =>
          store.submissions.resume({ workspaceId, environment: 'live' }, lead.id, (current) => ({
            submission: { ...current, answers: { ...current.answers, [ref]: 'x' } },
            searchText: '',
          })),
        ),
      );
      const stored = await store.submissions.get({ workspaceId, environment: 'live' }, lead.id);
      expect(Object.keys(stored!.submission.answers)).toEqual(expect.arrayContaining(refs));
      expect((await store.submissions.funnel({ formId: record.id, ...day })).days[0]).toMatchObject({ started: 1, completed: 0 });
    });
  });

  describe('creates made together', () => {
    const january = { month: '2031-01', start: '2031-01-01T00:00:00.000Z', end: '2031-02-01T00:00:00.000Z' };
    const range = (formId: string, environment: Environment) => ({
      formId,
      environment,
      from: '2031-01-01',
      to: '2031-01-31',
      topSources: 20,
    });

    it('when submissions are created at once and one of them fails, then the aggregates and the month count the others, as if made one by one', async () => {
      const record = form('together');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      // Days, statuses, grades, scores, steps, sources and both environments vary, so that sums meet and part.
      const variants = Array.from({ length: 12 }, (_, index) => {
        const lead = submission(
          record.id,
          new Date(Date.UTC(2031, 0, 1 + (index % 3), 0, 0, index)).toISOString(),
          index % 4 === 1 ? 'partial' : 'completed',
        );
        const source = ['newsletter', 'ads', null][index % 3] ?? null;
        return {
          submission: {
            ...lead,
            score: 10 * index,
            grade: lead.status === 'completed' ? (['A', 'B', null][index % 3] ?? null) : null,
            visited_steps: lead.status === 'completed' ? ['start', index % 2 ? 'middle' : 'other', 'end'] : ['start', 'middle'],
            context: { ...lead.context, utm: { ...lead.context.utm, source } },
          },
          workspaceId,
          environment: (index % 5 === 4 ? 'test' : 'live') as Environment,
        };
      });
      const failing = 6;
      // In one turn of the event loop: on SQLite, one group commit, whose aggregates are summed before they are written.
      const outcomes = await Promise.allSettled(
        variants.map((lead, index) =>
          store.submissions.insert(
            lead,
            index === failing
              ? () => {
                  throw new Error('refused after the row was written');
                }
              : undefined,
          ),
        ),
      );
      expect(outcomes.map((outcome) => outcome.status)).toEqual(variants.map((_, index) => (index === failing ? 'rejected' : 'fulfilled')));

      const oneByOne = await createTestStore(kind);
      try {
        const otherWorkspace = await workspace(oneByOne);
        await oneByOne.forms.create({ form: record, workspaceId: otherWorkspace, environment: 'live' });
        for (const [index, lead] of variants.entries()) {
          if (index !== failing) await oneByOne.submissions.insert({ ...lead, workspaceId: otherWorkspace });
        }
        for (const environment of ['live', 'test'] as const) {
          expect(await store.submissions.funnel(range(record.id, environment))).toEqual(
            await oneByOne.submissions.funnel(range(record.id, environment)),
          );
        }
        const counted = await store.usage.figures(workspaceId, january);
        expect(counted).toEqual(await oneByOne.usage.figures(otherWorkspace, january));
        expect(counted.submissions).toBe(variants.filter((lead, index) => index !== failing && lead.environment === 'live').length);
      } finally {
        await oneByOne.close();
      }
      expect(
        await store.submissions.get({ workspaceId, environment: variants[failing]!.environment }, variants[failing]!.submission.id),
      ).toBeUndefined();
    });
  });

  describe('idempotency purge', () => {
    it('when keys are purged in batches, then each batch deletes at most its limit, oldest first, and keeps the fresh ones', async () => {
      for (const [hash, minute] of [
        ['old1', 0],
        ['old2', 1],
        ['old3', 2],
        ['fresh', 10],
      ] as const) {
        expect((await store.idempotency.claim('key_purge', hash, 'f', at(minute), 86_400)).outcome).toBe('claimed');
      }
      expect(await store.idempotency.purgeExpired(at(5), 2)).toBe(2);
      expect(await store.idempotency.purgeExpired(at(5), 2)).toBe(1);
      expect(await store.idempotency.purgeExpired(at(5), 2)).toBe(0);
      expect(await store.idempotency.claim('key_purge', 'fresh', 'f', at(11), 86_400)).toEqual({
        outcome: 'conflict',
        reason: 'in_progress',
      });
      expect((await store.idempotency.claim('key_purge', 'old3', 'f', at(11), 86_400)).outcome).toBe('claimed');
    });
  });

  describe('races', () => {
    it('when two requests claim one idempotency key at once, then exactly one claims it and the other is told it is in progress', async () => {
      const claims = await Promise.all([
        store.idempotency.claim('key_a', 'hash', 'f1', at(0), 86_400),
        store.idempotency.claim('key_a', 'hash', 'f1', at(0), 86_400),
      ]);
      expect(claims.map((claim) => claim.outcome).sort()).toEqual(['claimed', 'conflict']);
      expect(claims).toContainEqual({ outcome: 'conflict', reason: 'in_progress' });
    });

    it('when the two admins of a workspace are removed at once, then one removal succeeds and the other is refused as last_admin', async () => {
      const admins = ['a@acme.test', 'b@acme.test'].map((email) => ({
        id: newId('mem'),
        object: 'member' as const,
        email,
        name: null,
        role: 'admin' as const,
        created_at: at(1),
      }));
      for (const admin of admins) await store.team.addMember(workspaceId, admin);
      const results = await Promise.allSettled(admins.map((admin) => store.team.removeMember(workspaceId, admin.id, audit(workspaceId))));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((result) => result.status === 'rejected')).toMatchObject({ reason: new StoreConflict('last_admin') });
      expect((await store.team.listMembers(workspaceId, { limit: 10 })).data).toHaveLength(1);
    });

    it('when two workers claim due deliveries at once, then no delivery is leased to both and none is left out', async () => {
      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
        audit(workspaceId, 'integration.created'),
      );
      for (let index = 0; index < 12; index++)
        await store.integrations.publish(event(workspaceId), { environments: ['live'], mock: false });
      const claim = (now: string, leaseUntil: string, limit: number, perIntegration = 100) =>
        store.integrations.claimDue({ now, leaseUntil, limit, perIntegration, perWorkspace: 100 });
      const [first, second] = await Promise.all([claim(at(100), at(160), 8), claim(at(100), at(160), 8)]);
      const ids = [...first!, ...second!].map((delivery) => delivery.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(12);
      expect(await claim(at(100), at(160), 8)).toEqual([]);
      // Once the lease has run out, the attempts can be claimed again (a worker that died).
      expect(await claim(at(160), at(220), 20)).toHaveLength(12);
      // The in-flight cap counts every worker's leases: two claims at once lease no more than it in total.
      const capped = await Promise.all([claim(at(220), at(280), 8, 5), claim(at(220), at(280), 8, 5)]);
      expect(capped.flat()).toHaveLength(5);
    });

    it("when attempts of one integration are recorded at once, then each is recorded and moves the integration's breaker in turn", async () => {
      const hook = integration();
      await store.integrations.create(
        { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
        audit(workspaceId, 'integration.created'),
      );
      for (let index = 0; index < 4; index++) await store.integrations.publish(event(workspaceId), { environments: ['live'], mock: false });
      const due = await store.integrations.claimDue({ now: at(100), leaseUntil: at(160), limit: 10, perIntegration: 10, perWorkspace: 10 });
      const failed = { status: 'failed' as const, url: hook.url, responseStatus: 503, durationMs: 5, error: null, nextAttemptAt: at(200) };
      const countFailure = { next: (current: CircuitState) => ({ ...current, consecutiveFailures: current.consecutiveFailures + 1 }) };
      const moves = await Promise.all(due.map((delivery) => store.integrations.recordAttempt(delivery.id, failed, countFailure)));
      expect(moves.map((move) => move?.after.consecutiveFailures).sort()).toEqual([1, 2, 3, 4]);
      const retries = await store.integrations.listLogs(hook.id, 'live', { status: 'pending' }, { limit: 10 });
      expect(retries.data.map((log) => log.attempt)).toEqual([2, 2, 2, 2]);
    });

    it('when submissions of one form and day are stored concurrently, then the aggregates count every one of them', async () => {
      const record = form('busy');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const leads = Array.from({ length: 12 }, (_, index) => submission(record.id, at(60), index % 3 === 0 ? 'partial' : 'completed'));
      await Promise.all(leads.map((lead) => store.submissions.insert({ submission: lead, workspaceId, environment: 'live' })));
      const totals = await store.submissions.funnel({
        formId: record.id,
        environment: 'live',
        from: '2031-01-01',
        to: '2031-01-01',
        topSources: 20,
      });
      expect(totals.days).toEqual([{ day: '2031-01-01', started: 12, completed: 8, scoreSum: 200, scoreCount: 8 }]);
      expect(totals.steps.sort((a, b) => a.stepId.localeCompare(b.stepId))).toEqual([
        { stepId: 'end', reached: 8, droppedOff: 0 },
        { stepId: 'start', reached: 12, droppedOff: 4 },
      ]);
      expect(totals.grades).toEqual([{ grade: 'B', completed: 8 }]);
      expect(totals.sources).toEqual({
        top: [{ source: 'newsletter', started: 12, completed: 8 }],
        other: { sources: 0, started: 0, completed: 0 },
      });
    });
  });
});
