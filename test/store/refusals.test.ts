import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { isAppError } from '../../src/domain/errors.js';
import { newId } from '../../src/ids.js';
import { InvalidCursor, RecordNotFound, StoreConflict } from '../../src/store/errors.js';
import { defaultAppearance, defaultScreens, noHosting, noSpamProtection } from '../../src/store/rows/forms.js';
import type { AuditEventInput, Store } from '../../src/store/types.js';
import { form as definition, shortText } from '../domain/fixtures.js';
import { createTestStore, storeKinds } from '../support/stores.js';

const at = '2031-01-01T00:00:00.000Z';
let store: Store;
let workspaceId: string;

const audit = (): AuditEventInput => ({
  workspaceId,
  environment: 'live',
  type: 'member.removed',
  actor: { type: 'system', id: null, name: null },
  target: { type: 'member', id: 'mem_x', name: null },
  reason: null,
  at,
});

function form(slug: string, folderId: string | null = null): Schema<'Form'> {
  return {
    id: newId('form'),
    object: 'form',
    name: slug,
    slug,
    status: 'published',
    version: 1,
    folder_id: folderId,
    test: false,
    created_at: at,
    updated_at: at,
    metadata: {},
    ...definition([{ id: 'start', title: 'Start', fields: [shortText('name')] }]),
    spam_protection: noSpamProtection,
    hosting: noHosting,
    appearance: defaultAppearance,
    ...defaultScreens,
    logo: null,
  };
}

/** The rejection of `promise`, checked to be the store's own class and never an API error. */
async function refusal(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => new Error('expected the store to refuse'),
    (caught: unknown) => caught,
  );
  expect(isAppError(error)).toBe(false);
  return error;
}

describe.each(storeKinds)('refusals of the %s store', (kind) => {
  beforeEach(async () => {
    store = await createTestStore(kind);
    workspaceId = newId('ws');
    await store.workspaces.create({ id: workspaceId, name: 'Acme', plan: 'business', createdAt: at });
  });
  afterEach(async () => {
    await store.close();
  });

  it('when a slug is taken on create, update or transfer, then StoreConflict slug_taken and nothing changes', async () => {
    const first = form('contact');
    await store.forms.create({ form: first, workspaceId, environment: 'live' });
    expect(await refusal(store.forms.create({ form: form('contact'), workspaceId, environment: 'live' }))).toEqual(
      new StoreConflict('slug_taken'),
    );
    const second = form('other');
    await store.forms.create({ form: second, workspaceId, environment: 'live' });
    const renamed = { ...second, slug: 'contact', version: 2 };
    expect(await refusal(store.forms.update({ form: renamed, workspaceId, environment: 'live' }, { keepVersions: 100 }))).toMatchObject({
      reason: 'slug_taken',
    });
    expect((await store.forms.get(workspaceId, second.id))?.form.slug).toBe('other');

    const destination = newId('ws');
    await store.workspaces.create({ id: destination, name: 'Beta', plan: 'business', createdAt: at });
    await store.forms.create({ form: form('contact'), workspaceId: destination, environment: 'live' });
    const transfer: Schema<'FormTransfer'> = {
      id: newId('xfr'),
      object: 'form_transfer',
      form_id: first.id,
      form_name: first.name,
      from_workspace_id: workspaceId,
      to_workspace_id: destination,
      status: 'pending',
      created_at: at,
      expires_at: '2999-01-01T00:00:00.000Z',
      resolved_at: null,
    };
    await store.transfers.create(transfer, at, []);
    const error = await refusal(store.transfers.accept(transfer.id, at, { events: [audit()], revokedKey: audit }));
    expect(error).toBeInstanceOf(StoreConflict);
    expect(error).toMatchObject({ reason: 'slug_taken' });
    expect((await store.forms.get(workspaceId, first.id))?.workspaceId).toBe(workspaceId);
    expect((await store.transfers.get(workspaceId, transfer.id, at))?.status).toBe('pending');
  });

  it('when a cursor names no row of the list, then InvalidCursor names the parameter it came from', async () => {
    const visibility = { workspaceId, environments: ['live'] as const, attachment: { type: 'workspace' as const } };
    const after = await refusal(store.forms.list(visibility, {}, { limit: 10, startingAfter: 'form_missing' }));
    expect(after).toBeInstanceOf(InvalidCursor);
    expect(after).toMatchObject({ parameter: 'starting_after' });
    expect(await refusal(store.auditEvents.list(workspaceId, {}, { limit: 10, endingBefore: 'aud_missing' }))).toMatchObject({
      parameter: 'ending_before',
    });
  });

  it('when a folder still holds forms, then StoreConflict folder_not_empty; a folder already gone is no error', async () => {
    const folder: Schema<'Folder'> = {
      id: newId('fld'),
      object: 'folder',
      name: 'Leads',
      test: false,
      form_count: 0,
      created_at: at,
      metadata: {},
    };
    await store.folders.create({ folder, workspaceId, environment: 'live' });
    await store.forms.create({ form: form('filed', folder.id), workspaceId, environment: 'live' });
    expect(await refusal(store.folders.delete(folder.id, at, { folder: audit(), revokedKey: audit }))).toEqual(
      new StoreConflict('folder_not_empty'),
    );
    await expect(store.folders.delete('fld_missing', at, { folder: audit(), revokedKey: audit })).resolves.toBeUndefined();
  });

  it('when a member is the only admin, gone, or an invite repeats a member, then the team store refuses with its reason', async () => {
    const admin: Schema<'Member'> = {
      id: newId('mem'),
      object: 'member',
      email: 'a@example.com',
      name: null,
      role: 'admin',
      created_at: at,
    };
    await store.team.addMember(workspaceId, admin);
    expect(await refusal(store.team.removeMember(workspaceId, admin.id, audit()))).toEqual(new StoreConflict('last_admin'));
    expect(await refusal(store.team.removeMember(workspaceId, 'mem_missing', audit()))).toEqual(
      new RecordNotFound('member', 'mem_missing'),
    );
    const invite: Schema<'Invite'> = {
      id: newId('inv'),
      object: 'invite',
      email: 'a@example.com',
      role: 'viewer',
      status: 'pending',
      expires_at: '2031-01-08T00:00:00.000Z',
      revoked_at: null,
      created_at: at,
    };
    expect(await refusal(store.team.createInvite(workspaceId, invite, audit()))).toEqual(new StoreConflict('member_exists'));
  });

  it('when a submission or integration is gone before the write, then RecordNotFound names it', async () => {
    expect(await refusal(store.submissions.delete({ workspaceId, environment: 'live' }, 'sub_missing'))).toEqual(
      new RecordNotFound('submission', 'sub_missing'),
    );
    const rescore = { score: 1, grade: null, scoreBreakdown: [], formVersion: 1, at };
    expect(await refusal(store.submissions.rescore({ workspaceId, environment: 'live' }, 'sub_missing', rescore))).toEqual(
      new RecordNotFound('submission', 'sub_missing'),
    );
    const event = {
      id: newId('evt'),
      workspaceId,
      environment: 'live' as const,
      type: 'integration.ping' as const,
      formId: null,
      submissionId: null,
      createdAt: at,
      body: '{}',
    };
    expect(await refusal(store.integrations.dispatch('int_missing', event, { newEvent: true, mock: true, at }))).toEqual(
      new RecordNotFound('integration', 'int_missing'),
    );
  });

  it('when tokens are stored for a grant that is not active, or a refresh token is spent, then the OAuth store refuses', async () => {
    const token = () => ({ id: newId('key'), hash: Buffer.alloc(32, 1), expiresAt: '2031-01-02T00:00:00.000Z' });
    const tokens = { access: token(), refresh: token(), issuedAt: at };
    expect(await refusal(store.oauth.issueTokens('grant_missing', tokens))).toEqual(new StoreConflict('grant_revoked'));
    expect(await refusal(store.oauth.rotateRefreshToken('token_missing', tokens))).toEqual(new StoreConflict('token_spent'));
  });
});
