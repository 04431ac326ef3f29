/**
 * Every store writes a form's rows only while the caller's workspace still holds the form, checked in the write's
 * own transaction. A write that a transfer's accept overtook (the caller read the form, the accept committed, then
 * the write ran) is refused with RecordNotFound and changes nothing; writes sent at the same moment as the accept
 * or a delete either come wholly before it (and move or go with the form) or are refused.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { newId } from '../../src/ids.js';
import { RecordNotFound } from '../../src/store/errors.js';
import type { Store } from '../../src/store/types.js';
import { pngImage } from '../support/images.js';
import { lockWaiters, until } from '../support/lock-waits.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';
import { at, audit, form, integration, submission, workspace } from './conformance/fixtures.js';

describe.each(storeKinds)('the %s store, when a transfer races the sender’s writes', (kind) => {
  let store: Store;
  let sender: string;
  let receiver: string;
  beforeEach(async () => {
    store = await createTestStore(kind);
    sender = await workspace(store);
    receiver = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  const live = (workspaceId: string) => ({ workspaceId, environment: 'live' as const });

  async function senderForm(slug: string): Promise<Schema<'Form'>> {
    const created = form(slug);
    await store.forms.create({ form: created, ...live(sender) });
    return created;
  }

  const transferOf = (formId: string): Schema<'FormTransfer'> => ({
    id: newId('xfr'),
    object: 'form_transfer',
    form_id: formId,
    form_name: 'Moving',
    from_workspace_id: sender,
    to_workspace_id: receiver,
    status: 'pending',
    created_at: at(1),
    expires_at: '2999-01-01T00:00:00.000Z',
    resolved_at: null,
  });

  async function offer(formId: string): Promise<string> {
    const transfer = transferOf(formId);
    await store.transfers.create(transfer, at(1), []);
    return transfer.id;
  }

  const accept = (transferId: string) =>
    store.transfers.accept(transferId, at(20), { events: [audit(receiver, 'form.transferred')], revokedKey: () => audit(sender) });

  /** A form offered and then accepted: the sender read it before, and writes after. */
  async function movedForm(slug: string): Promise<Schema<'Form'>> {
    const moved = await senderForm(slug);
    expect((await accept(await offer(moved.id))).outcome).toBe('accepted');
    return moved;
  }

  const rowsOf = (sql: string, ...params: unknown[]) => storedRows(store, sql, ...params);
  const revokedKey = () => audit(sender, 'api_key.revoked');

  it('then an update or a delete by the sender is RecordNotFound and the form stays the receiver’s, unchanged', async () => {
    const moved = await movedForm('moved');
    const renamed = { ...moved, name: 'Sender wrote this', version: 2, updated_at: at(30) };
    await expect(store.forms.update({ form: renamed, ...live(sender) }, { keepVersions: 100 })).rejects.toEqual(
      new RecordNotFound('form', moved.id),
    );
    await expect(store.forms.delete(sender, moved.id, at(31), { revokedKey })).rejects.toEqual(new RecordNotFound('form', moved.id));
    const kept = await store.forms.get(receiver, moved.id);
    expect(kept?.form.name).toBe(moved.name);
    expect(kept?.form.version).toBe(1);
  });

  it('then a submission, a rescore job, an integration or another transfer the sender writes for it is RecordNotFound, and nothing is stored', async () => {
    const moved = await movedForm('moved');
    await expect(store.submissions.insert({ submission: submission(moved.id, at(30)), ...live(sender) })).rejects.toEqual(
      new RecordNotFound('form', moved.id),
    );
    const job: Schema<'RescoreJob'> = {
      id: newId('rsj'),
      object: 'rescore_job',
      form_id: moved.id,
      form_version: 1,
      status: 'queued',
      test: false,
      total: 0,
      processed: 0,
      changed: 0,
      failure_message: null,
      created_at: at(31),
      started_at: null,
      finished_at: null,
    };
    await expect(store.rescoreJobs.create({ job, ...live(sender) })).rejects.toEqual(new RecordNotFound('form', moved.id));
    const hook = { ...integration(), form_id: moved.id };
    await expect(
      store.integrations.create({ integration: hook, ...live(sender), signingSecret: 'whsec_1' }, audit(sender, 'integration.created')),
    ).rejects.toEqual(new RecordNotFound('form', moved.id));
    await expect(store.transfers.create(transferOf(moved.id), at(32), [])).rejects.toEqual(new RecordNotFound('form', moved.id));
    expect(await rowsOf('SELECT id FROM submissions WHERE form_id = ?', moved.id)).toEqual([]);
    expect(await rowsOf('SELECT id FROM rescore_jobs WHERE form_id = ?', moved.id)).toEqual([]);
    expect(await rowsOf('SELECT id FROM integrations WHERE form_id = ?', moved.id)).toEqual([]);
  });

  it('then a logo image the sender stages for it is RecordNotFound and nothing is stored; the receiver’s is kept', async () => {
    const moved = await movedForm('moved');
    const bytes = pngImage(16, 16);
    const image = { sha256: createHash('sha256').update(bytes).digest('hex'), contentType: 'image/png' as const, bytes, createdAt: at(30) };
    await expect(store.formLogos.stage(sender, moved.id, image)).rejects.toEqual(new RecordNotFound('form', moved.id));
    expect(await rowsOf('SELECT sha256 FROM form_logos WHERE form_id = ?', moved.id)).toEqual([]);
    await store.formLogos.stage(receiver, moved.id, image);
    expect(await rowsOf('SELECT sha256 FROM form_logos WHERE form_id = ?', moved.id)).toEqual([{ sha256: image.sha256 }]);
  });

  it('then the sender’s delete, rescore or resume of a submission that moved with it is RecordNotFound; the receiver’s are made', async () => {
    const moving = await senderForm('moving');
    const lead = submission(moving.id, at(10), 'partial');
    await store.submissions.insert({ submission: lead, ...live(sender) });
    expect((await accept(await offer(moving.id))).outcome).toBe('accepted');
    const gone = new RecordNotFound('submission', lead.id);
    const rescore = { score: 1, grade: null, scoreBreakdown: [], formVersion: 1, at: at(30) };
    await expect(store.submissions.rescore(live(sender), lead.id, rescore)).rejects.toEqual(gone);
    await expect(store.submissions.resume(live(sender), lead.id, (current) => ({ submission: current, searchText: '' }))).rejects.toEqual(
      gone,
    );
    await expect(store.submissions.delete(live(sender), lead.id)).rejects.toEqual(gone);
    expect((await store.submissions.rescore(live(receiver), lead.id, rescore)).submission.score).toBe(1);
    await store.submissions.delete(live(receiver), lead.id);
    expect(await store.submissions.get(live(receiver), lead.id)).toBeUndefined();
  });

  it('then an integration already limited to the form can still be changed: only a form named anew is checked', async () => {
    const moving = await senderForm('moving');
    const hook = { ...integration(), form_id: moving.id };
    const record = { integration: hook, ...live(sender), signingSecret: 'whsec_1' };
    await store.integrations.create(record, audit(sender, 'integration.created'));
    expect((await accept(await offer(moving.id))).outcome).toBe('accepted');
    await store.integrations.update({ ...record, integration: { ...hook, description: 'kept', updated_at: at(30) } });
    expect((await store.integrations.get(sender, hook.id))?.integration.description).toBe('kept');
  });

  // Sent together: on PostgreSQL over separate pool connections, on SQLite through its single writer.
  const rounds = 10;
  const inserts = 6;

  it('then submissions sent at the moment of the accept are each refused or moved with the form', async () => {
    const wrong: Array<Record<string, unknown>> = [];
    for (let round = 0; round < rounds; round++) {
      const contested = await senderForm(`busy-${round}`);
      const transfer = await offer(contested.id);
      const leads = Array.from({ length: inserts }, (_, index) => submission(contested.id, at(10 + index)));
      const [accepted, ...outcomes] = await Promise.allSettled([
        accept(transfer),
        ...leads.map((lead) => store.submissions.insert({ submission: lead, ...live(sender) })),
      ]);
      const refusedOtherwise = outcomes.filter(
        (outcome) => outcome.status === 'rejected' && !(outcome.reason instanceof RecordNotFound && outcome.reason.kind === 'form'),
      );
      const stored = await rowsOf('SELECT id, workspace_id FROM submissions WHERE form_id = ?', contested.id);
      const acknowledged = leads.filter((_, index) => outcomes[index]!.status === 'fulfilled').map((lead) => lead.id);
      const outcome = {
        accept: accepted.status === 'fulfilled' ? accepted.value.outcome : String(accepted.reason),
        refusedOtherwise: refusedOtherwise.map((refused) => String((refused as PromiseRejectedResult).reason)),
        leftBehind: stored.filter((row) => row.workspace_id !== receiver).length,
        lost: acknowledged.filter((id) => !stored.some((row) => row.id === id)).length,
      };
      if (outcome.accept !== 'accepted' || outcome.refusedOtherwise.length > 0 || outcome.leftBehind > 0 || outcome.lost > 0)
        wrong.push({ round, ...outcome });
    }
    expect(wrong).toEqual([]);
  });

  it('then submissions sent at the moment of a delete are each refused as not found or deleted with the form', async () => {
    const wrong: Array<Record<string, unknown>> = [];
    for (let round = 0; round < rounds; round++) {
      const doomed = await senderForm(`doomed-${round}`);
      const [deleted, ...outcomes] = await Promise.allSettled([
        store.forms.delete(sender, doomed.id, at(20), { revokedKey }),
        ...Array.from({ length: inserts }, (_, index) =>
          store.submissions.insert({ submission: submission(doomed.id, at(10 + index)), ...live(sender) }),
        ),
      ]);
      const outcome = {
        delete: deleted.status === 'fulfilled' ? 'deleted' : String(deleted.reason),
        refusedOtherwise: outcomes
          .filter((outcome) => outcome.status === 'rejected' && !(outcome.reason instanceof RecordNotFound))
          .map((refused) => String((refused as PromiseRejectedResult).reason)),
        remaining: (await rowsOf('SELECT id FROM submissions WHERE form_id = ?', doomed.id)).length,
      };
      if (outcome.delete !== 'deleted' || outcome.refusedOtherwise.length > 0 || outcome.remaining > 0) wrong.push({ round, ...outcome });
    }
    expect(wrong).toEqual([]);
  });

  it('then of an accept and the sender’s delete sent together exactly one is made', async () => {
    const wrong: Array<Record<string, unknown>> = [];
    for (let round = 0; round < rounds; round++) {
      const contested = await senderForm(`contested-${round}`);
      const transfer = await offer(contested.id);
      const [accepted, deleted] = await Promise.allSettled([
        accept(transfer),
        store.forms.delete(sender, contested.id, at(20), { revokedKey }),
      ]);
      const outcome = {
        accept: accepted.status === 'fulfilled' ? accepted.value.outcome : String(accepted.reason),
        delete: deleted.status === 'fulfilled' ? 'deleted' : String(deleted.reason),
        receiverHolds: (await store.forms.get(receiver, contested.id)) !== undefined,
      };
      const acceptWon = outcome.accept === 'accepted' && deleted.status === 'rejected' && deleted.reason instanceof RecordNotFound;
      // The delete cancels the pending transfer, or the accept finds the form gone: the accept is refused either way.
      const deleteWon = ['form_gone', 'not_pending'].includes(outcome.accept) && outcome.delete === 'deleted' && !outcome.receiverHolds;
      if (!(acceptWon && outcome.receiverHolds) && !deleteWon) wrong.push({ round, ...outcome });
    }
    expect(wrong).toEqual([]);
  });
});

/**
 * The accept reads the transfer `FOR UPDATE` (`transferSql.getForAnswer`): a decline or a cancel that arrives while
 * the accept is moving the form's rows waits for it, then finds the transfer answered. Held mid-way on purpose (a
 * row the move updates is locked by another connection), the race happens every time instead of now and then;
 * without the lock the answer lands first and the accept fails on a transfer no longer pending.
 */
describe('the postgres store, when an answer arrives while an accept is moving the form', () => {
  let store: Store;
  let sender: string;
  let receiver: string;
  beforeEach(async () => {
    store = await createTestStore('postgres');
    sender = await workspace(store);
    receiver = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  const pool = () => (store as unknown as { pool: pg.Pool }).pool;
  const waiting = () => lockWaiters(pool());

  it.each(['declined', 'canceled'] as const)(
    'of the accept and an answer (%s) sent while it moves, the accept is made and the answer finds it answered',
    async (status) => {
      const moving = form('held');
      await store.forms.create({ form: moving, workspaceId: sender, environment: 'live' });
      const lead = submission(moving.id, at(10));
      await store.submissions.insert({ submission: lead, workspaceId: sender, environment: 'live' });
      const transfer: Schema<'FormTransfer'> = {
        id: newId('xfr'),
        object: 'form_transfer',
        form_id: moving.id,
        form_name: 'Moving',
        from_workspace_id: sender,
        to_workspace_id: receiver,
        status: 'pending',
        created_at: at(1),
        expires_at: '2999-01-01T00:00:00.000Z',
        resolved_at: null,
      };
      await store.transfers.create(transfer, at(1), []);

      // The holder locks the submission the accept's move updates, so the accept stops there, transfer read.
      const holder = await pool().connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM submissions WHERE id = $1 FOR UPDATE', [lead.id]);
        const accepting = store.transfers.accept(transfer.id, at(20), {
          events: [audit(receiver, 'form.transferred')],
          revokedKey: () => audit(sender, 'api_key.revoked'),
        });
        accepting.catch(() => {});
        await until(async () => (await waiting()) === 1);
        let answered = false;
        const answering = store.transfers.close(transfer.id, status, at(21), [audit(sender)]).finally(() => {
          answered = true;
        });
        answering.catch(() => {});
        // The answer either waits behind the accept's lock on the transfer or, without it, is made at once.
        await until(async () => answered || (await waiting()) === 2);
        await holder.query('COMMIT');
        const [accepted, closed] = await Promise.allSettled([accepting, answering]);
        expect({
          accept: accepted.status === 'fulfilled' ? accepted.value.outcome : String(accepted.reason),
          answer: closed.status === 'fulfilled' ? (closed.value?.status ?? 'not pending') : String(closed.reason),
          transfer: (await store.transfers.get(receiver, transfer.id, at(22)))?.status,
          receiverHolds: (await store.forms.get(receiver, moving.id)) !== undefined,
        }).toEqual({ accept: 'accepted', answer: 'not pending', transfer: 'accepted', receiverHolds: true });
      } finally {
        await holder.query('ROLLBACK').catch(() => {});
        holder.release();
      }
    },
  );
});
