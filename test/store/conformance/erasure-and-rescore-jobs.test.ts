/**
 * Every store: the address index behind erasure (kept on insert, recomputed on demand, normalised the same way),
 * the erasure's transaction, and the rescore job queue (one active job per form and environment, leases,
 * cursors, batches applied once).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/contract.js';
import { emailAnswersOf } from '../../../src/domain/submissions/erase.js';
import { newId } from '../../../src/ids.js';
import { indexSubmissionEmails as indexPostgres } from '../../../src/store/postgres/submission-emails.js';
import type { RescoreJobRecord } from '../../../src/store/rescore-job-store.js';
import { indexSubmissionEmails as indexSqlite } from '../../../src/store/sqlite/submission-emails.js';
import type { Store } from '../../../src/store/types.js';
import { form as definition, email, shortText } from '../../domain/fixtures.js';
import { createTestStore, storedRows, storeKinds } from '../../support/stores.js';
import { at, audit, form, submission, workspace } from './fixtures.js';

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

  /** A form whose `work_email` is an email field and `nickname` a text field. */
  const contactForm = async (): Promise<Schema<'Form'>> => {
    const record = {
      ...form(`contact-${newId('form').slice(-6).toLowerCase()}`),
      ...definition([{ id: 'start', title: 'Start', fields: [email('work_email'), shortText('nickname')] }]),
    };
    await store.forms.create({ form: record, workspaceId, environment: 'live' });
    return record;
  };
  const lead = async (formId: string, answers: Record<string, string>, environment: 'live' | 'test' = 'live', second = 10) => {
    const written = { ...submission(formId, at(second)), answers, test: environment === 'test' };
    await store.submissions.insert({ submission: written, workspaceId, environment });
    return written;
  };
  const eraseAudit = () => audit(workspaceId, 'submissions.erased');

  describe('erasure', () => {
    it('when addresses differ only in ASCII case and surrounding whitespace, then they match; text fields and other partitions do not', async () => {
      const record = await contactForm();
      const mixed = await lead(record.id, { work_email: 'Ana.Silva@Example.COM' });
      const lower = await lead(record.id, { work_email: 'ana.silva@example.com' });
      const inText = await lead(record.id, { work_email: 'someone@example.com', nickname: 'ana.silva@example.com' });
      const other = await lead(record.id, { work_email: 'bo@example.com' });
      const inTest = await lead(record.id, { work_email: 'ana.silva@example.com' }, 'test');

      const result = await store.submissions.erase({ workspaceId, environment: 'live' }, ' \tANA.silva@example.com\n', eraseAudit);

      // The erased ids in byte order (the order the submission.erased events list them in), each with its form.
      const erased = [mixed.id, lower.id].sort((a, b) => (a < b ? -1 : 1)).map((id) => ({ id, formId: record.id }));
      expect(result).toEqual({ deletedSubmissions: 2, canceledDeliveries: 0, erased });
      const live = { workspaceId, environment: 'live' as const };
      expect(await store.submissions.get(live, mixed.id)).toBeUndefined();
      expect(await store.submissions.get(live, lower.id)).toBeUndefined();
      expect(await store.submissions.get(live, inText.id)).toBeDefined();
      expect(await store.submissions.get(live, other.id)).toBeDefined();
      expect(await store.submissions.get({ workspaceId, environment: 'test' }, inTest.id)).toBeDefined();
      const range = { formId: record.id, environment: 'live' as const, from: '2031-01-01', to: '2031-01-01', topSources: 20 };
      expect((await store.submissions.funnel(range)).days).toEqual([
        { day: '2031-01-01', started: 2, completed: 2, scoreSum: 50, scoreCount: 2 },
      ]);
      expect((await store.auditEvents.list(workspaceId, { type: 'submissions.erased' }, { limit: 5 })).data).toHaveLength(1);
    });

    it('when the audit event cannot be written, then nothing is erased', async () => {
      const record = await contactForm();
      const kept = await lead(record.id, { work_email: 'cy@example.com' });
      const broken = () => ({ ...eraseAudit(), workspaceId: 'ws_missing' });
      await expect(store.submissions.erase({ workspaceId, environment: 'live' }, 'cy@example.com', broken)).rejects.toThrow();
      expect(await store.submissions.get({ workspaceId, environment: 'live' }, kept.id)).toBeDefined();
    });

    it('when a submission lost its index entries, then indexSubmissionEmails rebuilds them from the stored answers', async () => {
      const record = await contactForm();
      const written = await lead(record.id, { work_email: 'Dee@Example.com' });
      expect(await storedRows(store, 'SELECT email FROM submission_emails WHERE submission_id = ?', written.id)).toEqual([
        { email: 'dee@example.com' },
      ]);
      await storedRows(store, 'DELETE FROM submission_emails WHERE submission_id = ?', written.id);

      if ('db' in store) indexSqlite((store as Store & { db: Parameters<typeof indexSqlite>[0] }).db, written.id);
      else await indexPostgres((store as Store & { pool: Parameters<typeof indexPostgres>[0] }).pool, written.id);

      expect((await store.submissions.erase({ workspaceId, environment: 'live' }, 'dee@example.com', eraseAudit)).deletedSubmissions).toBe(
        1,
      );
    });

    it('when a new or resumed submission names its email answers, then its entries are the ones derived from its stored answers and form version', async () => {
      const record = {
        ...form(`emails-${newId('form').slice(-6).toLowerCase()}`),
        ...definition([
          { id: 'first', title: 'First', fields: [email('work_email'), shortText('nickname')] },
          { id: 'second', title: 'Second', fields: [email('backup_email'), email('unanswered')] },
        ]),
      };
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const answerSets: Array<Record<string, unknown>> = [
        { work_email: ' Ana@Example.COM\t', nickname: 'nick@example.com', backup_email: 'ana@example.com' },
        { work_email: 'ÉMILE@Example.com\r\n', backup_email: 42, stray: 'stray@example.com' },
        { nickname: 'only-text@example.com' },
      ];
      const entriesOf = (id: string) =>
        storedRows(store, 'SELECT email, form_id FROM submission_emails WHERE submission_id = ? ORDER BY email', id);
      for (const [index, answers] of answerSets.entries()) {
        const inserted = async (emailAnswers: string[] | undefined) => {
          const written = { ...submission(record.id, at(20 + index)), answers: answers as Record<string, string> };
          await store.submissions.insert({ submission: written, workspaceId, environment: 'live', emailAnswers });
          return entriesOf(written.id);
        };
        expect(await inserted(emailAnswersOf(record, answers)), JSON.stringify(answers)).toEqual(await inserted(undefined));
        // A resume replaces the entries: each lead starts with another address, then takes these answers.
        const resumed = async (named: boolean) => {
          const lead = { ...submission(record.id, at(30 + index), 'partial'), answers: { work_email: 'before@example.com' } };
          await store.submissions.insert({ submission: lead, workspaceId, environment: 'live' });
          await store.submissions.resume({ workspaceId, environment: 'live' }, lead.id, (current) => ({
            submission: { ...current, answers: answers as Record<string, string> },
            searchText: '',
            emailAnswers: named ? emailAnswersOf(record, answers) : undefined,
          }));
          return entriesOf(lead.id);
        };
        expect(await resumed(true), JSON.stringify(answers)).toEqual(await resumed(false));
      }
      expect(await storedRows(store, 'SELECT DISTINCT email FROM submission_emails WHERE form_id = ? ORDER BY email', record.id)).toEqual([
        { email: 'ana@example.com' },
        { email: 'Émile@example.com' },
      ]);
    });
  });

  describe('erasure of stored idempotent responses', () => {
    const day = 86_400;
    const answered = async (keyHash: string, submissionId: string, second: number) => {
      expect(await store.idempotency.claim('key_a', keyHash, 'fingerprint', at(second), day)).toEqual({ outcome: 'claimed' });
      await store.idempotency.complete({ ownerId: 'key_a', keyHash, sealedResponse: `sealed ${submissionId}`, submissionId });
    };

    it("when a kept response carries an erased submission, then its key answers erased and the copy is gone; another submission's stays", async () => {
      const record = await contactForm();
      const erased = await lead(record.id, { work_email: 'eve@example.com' });
      const kept = await lead(record.id, { work_email: 'fox@example.com' });
      await answered('h_create', erased.id, 20);
      await answered('h_rescore', erased.id, 21);
      await answered('h_other', kept.id, 22);

      await store.submissions.erase({ workspaceId, environment: 'live' }, 'eve@example.com', eraseAudit);

      for (const keyHash of ['h_create', 'h_rescore']) {
        expect(await store.idempotency.claim('key_a', keyHash, 'fingerprint', at(30), day)).toEqual({
          outcome: 'conflict',
          reason: 'erased',
        });
        expect(await store.idempotency.claim('key_a', keyHash, 'another', at(30), day)).toEqual({
          outcome: 'conflict',
          reason: 'different_request',
        });
      }
      expect(await storedRows(store, 'SELECT sealed_response FROM idempotency_keys WHERE submission_id = ?', erased.id)).toEqual([
        { sealed_response: null },
        { sealed_response: null },
      ]);
      expect(await store.idempotency.claim('key_a', 'h_other', 'fingerprint', at(30), day)).toEqual({
        outcome: 'replay',
        sealedResponse: `sealed ${kept.id}`,
      });
    });

    it('when a submission is deleted, then the responses kept for it are cleared as by an erasure', async () => {
      const record = await contactForm();
      const deleted = await lead(record.id, { work_email: 'hal@example.com' });
      await answered('h_create', deleted.id, 20);
      await store.submissions.delete({ workspaceId, environment: 'live' }, deleted.id);
      expect(await store.idempotency.claim('key_a', 'h_create', 'fingerprint', at(30), day)).toEqual({
        outcome: 'conflict',
        reason: 'erased',
      });
      expect(await storedRows(store, 'SELECT sealed_response FROM idempotency_keys WHERE submission_id = ?', deleted.id)).toEqual([
        { sealed_response: null },
      ]);
    });

    it('when an erased key expires, then it is claimed afresh and what it stores next is replayed', async () => {
      const record = await contactForm();
      const erased = await lead(record.id, { work_email: 'gil@example.com' });
      await answered('h_create', erased.id, 20);
      await store.submissions.erase({ workspaceId, environment: 'live' }, 'gil@example.com', eraseAudit);

      expect(await store.idempotency.claim('key_a', 'h_create', 'fingerprint', at(20 + day - 1), day)).toEqual({
        outcome: 'conflict',
        reason: 'erased',
      });
      expect(await store.idempotency.claim('key_a', 'h_create', 'fingerprint', at(20 + day), day)).toEqual({ outcome: 'claimed' });
      await store.idempotency.complete({ ownerId: 'key_a', keyHash: 'h_create', sealedResponse: 'a new response' });
      expect(await store.idempotency.claim('key_a', 'h_create', 'fingerprint', at(21 + day), day)).toEqual({
        outcome: 'replay',
        sealedResponse: 'a new response',
      });
    });
  });

  describe('rescore jobs', () => {
    const jobFor = (formId: string, created = at(30)): RescoreJobRecord => ({
      workspaceId,
      environment: 'live',
      job: {
        id: newId('rsj'),
        object: 'rescore_job',
        form_id: formId,
        form_version: 1,
        status: 'queued',
        test: false,
        total: 0,
        processed: 0,
        changed: 0,
        failure_message: null,
        created_at: created,
        started_at: null,
        finished_at: null,
      },
    });
    const rescore = (score: number) => ({ score, grade: 'A', scoreBreakdown: [], formVersion: 1, at: at(40) });

    it('when a form has an active job, then a second create answers its id; two at once store exactly one', async () => {
      const record = await contactForm();
      await lead(record.id, { work_email: 'e@example.com' });
      const [first, second] = await Promise.all([store.rescoreJobs.create(jobFor(record.id)), store.rescoreJobs.create(jobFor(record.id))]);
      const stored = [first, second].filter((result) => !('activeId' in result));
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ total: 1, status: 'queued' });
      const answered = [first, second].find((result) => 'activeId' in result);
      expect(answered).toEqual({ activeId: (stored[0] as { id: string }).id });
    });

    it('when several processes claim at once, then each queued job goes to exactly one of them', async () => {
      const forms = [await contactForm(), await contactForm()];
      for (const record of forms) await store.rescoreJobs.create(jobFor(record.id));
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => store.rescoreJobs.claim(owner, at(31), at(90))));
      const claimed = claims.filter((claim) => claim !== undefined).map((claim) => claim.job.form_id);
      expect(claimed.sort()).toEqual(forms.map((record) => record.id).sort());
    });

    it('when jobs are claimed, then each goes to one owner, batches apply only under the lease, and a lapsed lease resumes from the cursor', async () => {
      const record = await contactForm();
      const leads = [];
      for (let second = 10; second < 15; second++)
        leads.push(await lead(record.id, { work_email: `l${second}@example.com` }, 'live', second));
      // Created after the job: not a candidate.
      await lead(record.id, { work_email: 'late@example.com' }, 'live', 50);
      const created = await store.rescoreJobs.create(jobFor(record.id));
      const jobId = (created as { id: string }).id;

      const claimed = await store.rescoreJobs.claim('one', at(31), at(90));
      expect(claimed).toMatchObject({ job: { id: jobId, status: 'running', started_at: at(31) }, cursor: null });
      expect(await store.rescoreJobs.claim('two', at(32), at(90))).toBeUndefined();

      const firstBatch = await store.rescoreJobs.candidates(claimed!, null, 2);
      expect(firstBatch.map((candidate) => candidate.id)).toEqual([leads[4]!.id, leads[3]!.id]);
      const cursor = { createdAt: firstBatch[1]!.created_at, id: firstBatch[1]!.id };
      const batch = { updates: firstBatch.map((candidate) => ({ candidate, rescore: rescore(99) })), cursor };
      expect(await store.rescoreJobs.applyBatch(jobId, 'two', batch, at(90))).toBe(false);
      expect(await store.rescoreJobs.applyBatch(jobId, 'one', batch, at(35))).toBe(true);
      expect(await store.rescoreJobs.get({ workspaceId, environment: 'live' }, jobId)).toMatchObject({ processed: 2, changed: 2 });

      // The lease (until second 35) lapses; another owner resumes after the cursor.
      const resumed = await store.rescoreJobs.claim('two', at(36), at(90));
      expect(resumed).toMatchObject({ job: { id: jobId }, cursor });
      expect(await store.rescoreJobs.applyBatch(jobId, 'one', batch, at(90))).toBe(false);
      const rest = await store.rescoreJobs.candidates(resumed!, resumed!.cursor, 10);
      expect(rest.map((candidate) => candidate.id)).toEqual([leads[2]!.id, leads[1]!.id, leads[0]!.id]);

      // A submission changed since it was read keeps its own state.
      await store.submissions.rescore({ workspaceId, environment: 'live' }, rest[0]!.id, { ...rescore(7), at: at(37) });
      const last = rest[2]!;
      const applied = await store.rescoreJobs.applyBatch(
        jobId,
        'two',
        { updates: rest.map((candidate) => ({ candidate, rescore: rescore(99) })), cursor: { createdAt: last.created_at, id: last.id } },
        at(90),
      );
      expect(applied).toBe(true);
      const live = { workspaceId, environment: 'live' as const };
      expect((await store.submissions.get(live, rest[0]!.id))?.submission.score).toBe(7);
      expect((await store.submissions.get(live, rest[1]!.id))?.submission.score).toBe(99);
      expect(await store.rescoreJobs.candidates(resumed!, { createdAt: last.created_at, id: last.id }, 10)).toEqual([]);

      await store.rescoreJobs.finish(jobId, 'two', { status: 'succeeded', at: at(41), failureMessage: null });
      expect(await store.rescoreJobs.get(live, jobId)).toMatchObject({
        status: 'succeeded',
        processed: 5,
        changed: 4,
        finished_at: at(41),
      });
      // The aggregates moved with every applied score: 4 × 99 + 7 + the late lead's 25.
      const range = { formId: record.id, environment: 'live' as const, from: '2031-01-01', to: '2031-01-01', topSources: 20 };
      expect((await store.submissions.funnel(range)).days[0]).toMatchObject({ scoreSum: 4 * 99 + 7 + 25 });
      expect(await store.rescoreJobs.get({ workspaceId, environment: 'test' }, jobId)).toBeUndefined();
    });
  });
});
