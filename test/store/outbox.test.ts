/**
 * The transactional outbox, in both stores: a change, its events with their pending deliveries, and the completion of
 * the request's Idempotency-Key commit together. Failures are injected where the outbox writes (a trigger that
 * aborts an INSERT or UPDATE, a claim another request answered), and the whole database must be as it was.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import type { EventRecord, IdempotentResponse, Outbox } from '../../src/store/outbox.js';
import { defaultAppearance, defaultScreens, noHosting, noSpamProtection } from '../../src/store/rows/forms.js';
import { completeContext } from '../../src/store/rows/submissions.js';
import type { AuditEventInput, Store } from '../../src/store/types.js';
import { injectFailure, storeSnapshot } from '../support/db-snapshot.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';

const at = '2031-05-01T10:00:00.000Z';
const day = 24 * 3600;

const form = (id: string, slug: string): Schema<'Form'> => ({
  id,
  object: 'form',
  name: slug,
  slug,
  status: 'published',
  version: 1,
  folder_id: null,
  test: false,
  created_at: at,
  updated_at: at,
  metadata: {},
  steps: [{ id: 'step_1', title: 'One', fields: [] }],
  logic: [],
  scoring: { rules: [], grades: [] },
  spam_protection: noSpamProtection,
  hosting: noHosting,
  appearance: defaultAppearance,
  ...defaultScreens,
  logo: null,
});

const submission = (id: string): Schema<'Submission'> => ({
  id,
  object: 'submission',
  form_id: 'form_1',
  form_version: 1,
  status: 'completed',
  test: false,
  answers: {},
  hidden: {},
  visited_steps: ['step_1'],
  score: 0,
  grade: null,
  score_breakdown: [],
  context: completeContext(undefined),
  metadata: {},
  completed_at: at,
  scored_at: at,
  created_at: at,
  updated_at: at,
});

const audit = (type: AuditEventInput['type']): AuditEventInput => ({
  workspaceId: 'ws_1',
  environment: 'live',
  type,
  actor: { type: 'system', id: null, name: null },
  target: { type: 'workspace', id: 'ws_1', name: 'Acme' },
  reason: null,
  at,
});

const transfer = (id: string, formId: string): Schema<'FormTransfer'> => ({
  id,
  object: 'form_transfer',
  form_id: formId,
  form_name: 'first',
  from_workspace_id: 'ws_1',
  to_workspace_id: 'ws_2',
  status: 'pending',
  created_at: at,
  expires_at: '2031-05-08T10:00:00.000Z',
  resolved_at: null,
});

const eventOf = (id: string, type: Schema<'EventType'>): EventRecord => ({
  id,
  workspaceId: 'ws_1',
  environment: 'live',
  type,
  formId: 'form_1',
  submissionId: null,
  createdAt: at,
  body: JSON.stringify({ id, type }),
});

let store: Store;
const count = async (table: string): Promise<number> => (await storedRows(store, `SELECT count(*) AS n FROM "${table}"`))[0]!.n as number;
const keyState = async (keyHash: string) =>
  (await storedRows(store, 'SELECT state, sealed_response FROM idempotency_keys WHERE key_hash = ?', keyHash))[0] as
    | { state: string; sealed_response: string | null }
    | undefined;
const snapshot = () => storeSnapshot(store);

describe.each(storeKinds)('the outbox in the %s store', (kind) => {
  beforeEach(async () => {
    store = await createTestStore(kind);
    await store.workspaces.create({ id: 'ws_1', name: 'Acme', plan: 'business', createdAt: at });
    await store.workspaces.create({ id: 'ws_2', name: 'Other', plan: 'business', createdAt: at });
    await store.forms.create({ form: form('form_1', 'first'), workspaceId: 'ws_1', environment: 'live' });
    await store.transfers.create(transfer('xfr_1', 'form_1'), at, []);
    // The sender's own form a second transfer offers (a transfer is refused for a form the workspace does not hold).
    await store.forms.create({ form: form('form_3', 'third'), workspaceId: 'ws_1', environment: 'live' });
    await store.submissions.insert({ submission: submission('sub_1'), workspaceId: 'ws_1', environment: 'live' });
    await store.integrations.create(
      {
        integration: {
          id: 'int_1',
          object: 'integration',
          type: 'webhook',
          url: 'https://hooks.example.com/in',
          events: ['form.created', 'form.updated', 'form.deleted', 'submission.created', 'submission.rescored'],
          enabled: true,
          disabled_at: null,
          disabled_reason: null,
          description: null,
          form_id: null,
          secret_hint: 'whsec_…abcd',
          previous_secret_expires_at: null,
          test: false,
          created_at: at,
          updated_at: at,
          metadata: {},
        },
        workspaceId: 'ws_1',
        environment: 'live',
        signingSecret: 'whsec_secret',
      },
      audit('integration.created'),
    );
  });
  afterEach(async () => {
    await store.close();
  });

  /** A claimed key and the outbox that completes it (with one event): what a request with an Idempotency-Key gives a change. */
  async function claimedOutbox(keyHash: string, events: EventRecord[] = []): Promise<Outbox<unknown>> {
    expect(await store.idempotency.claim('key_1', keyHash, 'fingerprint', at, day)).toEqual({ outcome: 'claimed' });
    const response: IdempotentResponse = { ownerId: 'key_1', keyHash, sealedResponse: `sealed ${keyHash}` };
    return () => ({ events: events.map((event) => ({ event, subscribers: { environments: ['live'], mock: false } })), response });
  }

  /** Every store method that ends a use case's change, called with the given outbox. */
  const changes: Array<[string, (outbox: Outbox<unknown>) => Promise<unknown>]> = [
    ['forms.create', (outbox) => store.forms.create({ form: form('form_2', 'second'), workspaceId: 'ws_1', environment: 'live' }, outbox)],
    [
      'forms.update',
      (outbox) =>
        store.forms.update(
          { form: { ...form('form_1', 'renamed'), version: 2 }, workspaceId: 'ws_1', environment: 'live' },
          { keepVersions: 100 },
          outbox,
        ),
    ],
    ['forms.delete', (outbox) => store.forms.delete('ws_1', 'form_1', at, { revokedKey: () => audit('api_key.revoked') }, outbox)],
    ['transfers.create', (outbox) => store.transfers.create(transfer('xfr_2', 'form_3'), at, [audit('form.transfer_requested')], outbox)],
    [
      'transfers.accept',
      (outbox) =>
        store.transfers.accept('xfr_1', at, { events: [audit('form.transferred')], revokedKey: () => audit('api_key.revoked') }, outbox),
    ],
    ['transfers.close', (outbox) => store.transfers.close('xfr_1', 'declined', at, [audit('form.transfer_declined')], outbox)],
    [
      'submissions.insert',
      (outbox) => store.submissions.insert({ submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live' }, outbox),
    ],
    // With its email answers named, as the API's create names them (on PostgreSQL: the one-statement create).
    [
      'submissions.insert with named email answers',
      (outbox) =>
        store.submissions.insert(
          { submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live', emailAnswers: ['Ada@Example.com'] },
          outbox,
        ),
    ],
    [
      'submissions.rescore',
      (outbox) =>
        store.submissions.rescore(
          { workspaceId: 'ws_1', environment: 'live' },
          'sub_1',
          { score: 5, grade: null, scoreBreakdown: [], formVersion: 1, at },
          outbox,
        ),
    ],
    [
      'integrations.create',
      async (outbox) => {
        const record = await store.integrations.get('ws_1', 'int_1');
        return store.integrations.create(
          { ...record!, integration: { ...record!.integration, id: 'int_2' } },
          audit('integration.created'),
          outbox,
        );
      },
    ],
    [
      'integrations.rotateSecret',
      (outbox) =>
        store.integrations.rotateSecret(
          'int_1',
          { secret: 'whsec_rotated', hint: 'whsec_…ated', previousExpiresAt: at, at },
          audit('integration.secret_rotated'),
          outbox,
        ),
    ],
    [
      'integrations.dispatch',
      (outbox) =>
        store.integrations.dispatch('int_1', eventOf('evt_ping', 'integration.ping'), { newEvent: true, mock: false, at }, outbox),
    ],
    [
      'apiKeys.create',
      (outbox) =>
        store.apiKeys.create(
          {
            key: {
              id: 'key_2',
              object: 'api_key',
              name: 'new',
              environment: 'live',
              scope: 'read',
              attachment: { type: 'workspace' },
              expires_at: null,
              ip_allowlist: [],
              status: 'active',
              revoked_at: null,
              revocation_reason: null,
              revocation_cause: null,
              secret_hint: 'svc_live_…abcd',
              last_used_at: null,
              created_at: at,
            },
            workspaceId: 'ws_1',
            secretHash: Buffer.alloc(32, 7),
          },
          audit('api_key.created'),
          outbox,
        ),
    ],
    [
      'folders.create',
      (outbox) =>
        store.folders.create(
          {
            folder: { id: 'fld_1', object: 'folder', name: 'Folder', test: false, form_count: 0, created_at: at, metadata: {} },
            workspaceId: 'ws_1',
            environment: 'live',
          },
          outbox,
        ),
    ],
    [
      'team.createInvite',
      (outbox) =>
        store.team.createInvite(
          'ws_1',
          {
            id: 'inv_1',
            object: 'invite',
            email: 'new@acme.test',
            role: 'editor',
            status: 'pending',
            expires_at: '2031-05-08T10:00:00.000Z',
            revoked_at: null,
            created_at: at,
          },
          audit('member.invited'),
          outbox,
        ),
    ],
  ];

  describe('a change and its outbox', () => {
    it('when the outbox is written, then the change, the event with a delivery per subscriber and the completed key are all stored', async () => {
      const outbox = await claimedOutbox('h1', [eventOf('evt_1', 'submission.created')]);
      await store.submissions.insert({ submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live' }, outbox);
      expect(await count('submissions')).toBe(2);
      expect(await storedRows(store, 'SELECT id FROM events')).toEqual([{ id: 'evt_1' }]);
      expect(await storedRows(store, 'SELECT integration_id, event_id, status FROM deliveries')).toEqual([
        { integration_id: 'int_1', event_id: 'evt_1', status: 'pending' },
      ]);
      expect(await keyState('h1')).toEqual({ state: 'done', sealed_response: 'sealed h1' });
      expect(await store.idempotency.claim('key_1', 'h1', 'fingerprint', at, day)).toEqual({
        outcome: 'replay',
        sealedResponse: 'sealed h1',
      });
    });

    it('when writing the event rows fails, then neither the change nor the key completion is stored, and the key can be claimed again', async () => {
      const removeFailure = await injectFailure(store, 'BEFORE INSERT ON events');
      const outbox = await claimedOutbox('h2', [eventOf('evt_2', 'submission.created')]);
      const before = await snapshot();
      await expect(
        store.submissions.insert({ submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live' }, outbox),
      ).rejects.toThrow('injected failure');
      expect(await snapshot()).toEqual(before);
      expect(await keyState('h2')).toEqual({ state: 'in_progress', sealed_response: null });
      // The failed request releases its key: the client's retry runs the change once.
      await store.idempotency.release('key_1', 'h2');
      await removeFailure();
      const retry = await claimedOutbox('h2', [eventOf('evt_3', 'submission.created')]);
      await store.submissions.insert({ submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live' }, retry);
      expect(await count('submissions')).toBe(2);
      expect(await count('events')).toBe(1);
    });

    // Answers named or not: on PostgreSQL these are the one-statement create and the transaction.
    it.each([
      ['derived', undefined],
      ['named', []],
    ])(
      'when a change emits several events (email answers %s), then each gets an attempt for exactly the integrations that subscribe to its type and form',
      async (_, emailAnswers) => {
        await store.forms.create({ form: form('form_2', 'second'), workspaceId: 'ws_1', environment: 'live' });
        const integration = (
          id: string,
          events: Array<Schema<'EventType'>>,
          options: { formId?: string; environment?: 'live' | 'test' } = {},
        ) =>
          store.integrations.create(
            {
              integration: {
                id,
                object: 'integration',
                type: 'webhook',
                url: `https://hooks.example.com/${id}`,
                events,
                enabled: true,
                disabled_at: null,
                disabled_reason: null,
                description: null,
                form_id: options.formId ?? null,
                secret_hint: 'whsec_…abcd',
                previous_secret_expires_at: null,
                test: options.environment === 'test',
                created_at: at,
                updated_at: at,
                metadata: {},
              },
              workspaceId: 'ws_1',
              environment: options.environment ?? 'live',
              signingSecret: 'whsec_secret',
            },
            audit('integration.created'),
          );
        await integration('int_form_1', ['submission.completed'], { formId: 'form_1' });
        await integration('int_form_2', ['submission.created', 'submission.completed'], { formId: 'form_2' });
        await integration('int_test', ['submission.created', 'submission.completed'], { environment: 'test' });
        await integration('int_off', ['submission.created', 'submission.completed']);
        await storedRows(store, `UPDATE integrations SET enabled = FALSE WHERE id = 'int_off'`);
        const outbox = await claimedOutbox('h5', [eventOf('evt_5', 'submission.created'), eventOf('evt_6', 'submission.completed')]);
        await store.submissions.insert({ submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live', emailAnswers }, outbox);
        expect(await storedRows(store, 'SELECT id FROM events ORDER BY id')).toEqual([{ id: 'evt_5' }, { id: 'evt_6' }]);
        expect(await storedRows(store, 'SELECT event_id, integration_id FROM deliveries ORDER BY event_id, integration_id')).toEqual([
          { event_id: 'evt_5', integration_id: 'int_1' },
          { event_id: 'evt_6', integration_id: 'int_form_1' },
        ]);
      },
    );

    it('when more integrations subscribe than a create first has delivery ids for, then each gets one attempt and the create is stored once', async () => {
      for (let n = 0; n < 9; n++)
        await store.integrations.create(
          {
            integration: {
              id: `int_many_${n}`,
              object: 'integration',
              type: 'webhook',
              url: `https://hooks.example.com/many/${n}`,
              events: ['submission.created'],
              enabled: true,
              disabled_at: null,
              disabled_reason: null,
              description: null,
              form_id: null,
              secret_hint: 'whsec_…abcd',
              previous_secret_expires_at: null,
              test: false,
              created_at: at,
              updated_at: at,
              metadata: {},
            },
            workspaceId: 'ws_1',
            environment: 'live',
            signingSecret: 'whsec_secret',
          },
          audit('integration.created'),
        );
      const outbox = await claimedOutbox('h7', [eventOf('evt_7', 'submission.created')]);
      await store.submissions.insert(
        { submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live', emailAnswers: ['ada@example.com'] },
        outbox,
      );
      const deliveries = await storedRows(store, 'SELECT id, integration_id, url, attempt, status FROM deliveries ORDER BY integration_id');
      expect(deliveries.map(({ integration_id, url, attempt, status }) => ({ integration_id, url, attempt, status }))).toEqual([
        { integration_id: 'int_1', url: 'https://hooks.example.com/in', attempt: 1, status: 'pending' },
        ...Array.from({ length: 9 }, (_, n) => ({
          integration_id: `int_many_${n}`,
          url: `https://hooks.example.com/many/${n}`,
          attempt: 1,
          status: 'pending',
        })),
      ]);
      expect(new Set(deliveries.map((row) => row.id)).size).toBe(10);
      expect(await count('submissions')).toBe(2);
      expect(await count('events')).toBe(1);
      expect(await count('submission_emails')).toBe(1);
      expect(await keyState('h7')).toEqual({ state: 'done', sealed_response: 'sealed h7' });
    });

    it('when no integration subscribes to the event, then the change and the event are stored (the feed lists it) and no attempt is queued', async () => {
      await storedRows(store, 'UPDATE integrations SET enabled = FALSE');
      const outbox = await claimedOutbox('h3', [eventOf('evt_4', 'submission.created')]);
      await store.submissions.insert({ submission: submission('sub_2'), workspaceId: 'ws_1', environment: 'live' }, outbox);
      expect(await count('submissions')).toBe(2);
      expect(await count('events')).toBe(1);
      expect(await count('deliveries')).toBe(0);
      expect((await keyState('h3'))?.state).toBe('done');
    });

    describe.each(changes)('%s', (_name, change) => {
      it('when its outbox is written, then the change completes the key in the same transaction', async () => {
        const outbox = await claimedOutbox('h4');
        const before = await snapshot();
        await change(outbox);
        expect(await snapshot()).not.toEqual({ ...before, idempotency_keys: (await snapshot()).idempotency_keys });
        expect(await keyState('h4')).toEqual({ state: 'done', sealed_response: 'sealed h4' });
      });

      it('when writing the key completion fails, then nothing of the change is stored', async () => {
        const removeFailure = await injectFailure(store, 'BEFORE UPDATE ON idempotency_keys');
        const outbox = await claimedOutbox('h5');
        const before = await snapshot();
        await expect(change(outbox)).rejects.toThrow('injected failure');
        expect(await snapshot()).toEqual(before);
        await removeFailure();
      });

      it('when another request answered the key meanwhile (this one was taken for abandoned), then the change is refused, not made twice', async () => {
        const outbox = await claimedOutbox('h6');
        await store.idempotency.complete({ ownerId: 'key_1', keyHash: 'h6', sealedResponse: 'the other response' });
        const before = await snapshot();
        await expect(change(outbox)).rejects.toMatchObject({ name: 'StoreConflict', reason: 'idempotency_claim_lost' });
        expect(await snapshot()).toEqual(before);
        expect(await keyState('h6')).toEqual({ state: 'done', sealed_response: 'the other response' });
      });
    });
  });

  describe('completing and releasing a key outside a change', () => {
    it('when the change already completed the key, then a later completion or release leaves its response alone', async () => {
      const outbox = await claimedOutbox('h7');
      await store.folders.create(
        {
          folder: { id: 'fld_2', object: 'folder', name: 'Folder', test: false, form_count: 0, created_at: at, metadata: {} },
          workspaceId: 'ws_1',
          environment: 'live',
        },
        outbox,
      );
      await store.idempotency.complete({ ownerId: 'key_1', keyHash: 'h7', sealedResponse: 'a later response' });
      await store.idempotency.release('key_1', 'h7');
      expect(await keyState('h7')).toEqual({ state: 'done', sealed_response: 'sealed h7' });
    });
  });
});
