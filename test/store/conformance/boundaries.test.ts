/**
 * Every store, at the exact edges the HTTP tests used to be alone in checking: a transfer at the instant it
 * expires, a score equal to a bound, and the order of a searched list (which the PostgreSQL store reads back by
 * id and must put in the list's order again).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/contract.js';
import { newId } from '../../../src/ids.js';
import type { SubmissionFilter, SubmissionOrder } from '../../../src/store/submission-store.js';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storeKinds } from '../../support/stores.js';
import { at, audit, form, submission, workspace } from './fixtures.js';

describe.each(storeKinds)('the %s store at its boundaries', (kind) => {
  let store: Store;
  let workspaceId: string;
  beforeEach(async () => {
    store = await createTestStore(kind);
    workspaceId = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  describe('transfer expiry', () => {
    const expiresAt = at(50);
    const justBefore = new Date(Date.parse(expiresAt) - 1).toISOString();
    const offered = async (): Promise<Schema<'FormTransfer'>> => {
      const record = form(`offered-${newId('form').slice(-6).toLowerCase()}`);
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      const destination = newId('ws');
      await store.workspaces.create({ id: destination, name: 'Beta', plan: 'business', createdAt: at(0) });
      const transfer: Schema<'FormTransfer'> = {
        id: newId('xfr'),
        object: 'form_transfer',
        form_id: record.id,
        form_name: record.name,
        from_workspace_id: workspaceId,
        to_workspace_id: destination,
        status: 'pending',
        created_at: at(10),
        expires_at: expiresAt,
        resolved_at: null,
      };
      await store.transfers.create(transfer, at(10), []);
      return transfer;
    };

    it('when read a millisecond before its expiry, then pending; at exactly its expiry, then expired at that instant', async () => {
      const transfer = await offered();
      expect(await store.transfers.get(workspaceId, transfer.id, justBefore)).toMatchObject({ status: 'pending', resolved_at: null });
      expect(await store.transfers.get(workspaceId, transfer.id, expiresAt)).toMatchObject({ status: 'expired', resolved_at: expiresAt });
    });

    it('when accepted at exactly its expiry, then not_pending and the form stays; a millisecond before, then accepted', async () => {
      const late = await offered();
      const accepted = (id: string, instant: string) =>
        store.transfers.accept(id, instant, { events: [audit(workspaceId)], revokedKey: () => audit(workspaceId) });
      expect(await accepted(late.id, expiresAt)).toMatchObject({ outcome: 'not_pending', transfer: { status: 'expired' } });
      expect((await store.forms.get(workspaceId, late.form_id))?.workspaceId).toBe(workspaceId);

      const inTime = await offered();
      expect(await accepted(inTime.id, justBefore)).toMatchObject({ outcome: 'accepted', transfer: { status: 'accepted' } });
    });
  });

  describe('submission lists', () => {
    let formId: string;
    beforeEach(async () => {
      const record = form('scored');
      await store.forms.create({ form: record, workspaceId, environment: 'live' });
      formId = record.id;
    });
    /** One submission per score, created a second apart in the order given; `searchable` ones carry the word. */
    const scored = async (scores: number[], searchable = true) => {
      const ids: string[] = [];
      for (const [index, score] of scores.entries()) {
        const written = { ...submission(formId, at(10 + index)), score };
        await store.submissions.insert({
          submission: written,
          workspaceId,
          environment: 'live',
          searchText: searchable ? `lead ${index}\nneedle` : `lead ${index}`,
        });
        ids.push(written.id);
      }
      return ids;
    };
    const listed = async (filter: SubmissionFilter, order?: SubmissionOrder) =>
      (
        await store.submissions.list(
          { workspaceId, environment: 'live', attachment: { type: 'workspace' } },
          { formId, ...filter },
          { limit: 10 },
          order,
        )
      ).data.map((found) => found.id);

    it('when a score equals a bound, then both min_score and max_score include it', async () => {
      const [ten, twenty, thirty] = await scored([10, 20, 30]);
      expect(await listed({ maxScore: 20 })).toEqual([twenty, ten]);
      expect(await listed({ minScore: 20 })).toEqual([thirty, twenty]);
      expect(await listed({ minScore: 20, maxScore: 20 })).toEqual([twenty]);
      expect(await listed({ maxScore: 19 })).toEqual([ten]);
    });

    it("when a list is searched, then the matches come in the list's order, not in the order they were stored", async () => {
      const [first, second, third, fourth] = await scored([30, 10, 40, 20]);
      await scored([50], false);
      expect(await listed({ search: 'needle' })).toEqual([fourth, third, second, first]);
      expect(await listed({ search: 'needle' }, { key: 'score', direction: 'asc' })).toEqual([second, fourth, first, third]);
      expect(await listed({ search: 'needle' }, { key: 'created_at', direction: 'asc' })).toEqual([first, second, third, fourth]);
    });
  });
});
