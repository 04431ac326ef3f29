/**
 * Publishable keys and public resume tokens, on every store: round trips (origins as JSON, the token secret and
 * hashes as bytes, timestamps), the credential joined to its workspace, keyset pages, updates of a workspace's active
 * keys (compared with an expected tag when one is given) and the preflights' answers that follow them, revocation
 * audited once, and `last_used_at` that only moves forward; the hosted pages' key, one per workspace and environment,
 * never listed, got or changed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/contract.js';
import { entityTagOf } from '../../../src/etag.js';
import { newId } from '../../../src/ids.js';
import { RecordNotFound, StoreConflict } from '../../../src/store/errors.js';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storeKinds } from '../../support/stores.js';
import { at, audit, workspace } from './fixtures.js';

const attachedFolder = 'fld_000000000000000000000000';

const publishableKey = (created: string, value: string): Schema<'PublishableKey'> => ({
  id: newId('pk'),
  object: 'publishable_key',
  name: 'Website',
  environment: 'test',
  value,
  allowed_origins: ['https://www.acme.example', 'http://localhost:5173'],
  attachment: { type: 'folder', folder_id: attachedFolder },
  status: 'active',
  revoked_at: null,
  last_used_at: null,
  created_at: created,
});

describe.each(storeKinds)('publishable keys on the %s store', (kind) => {
  let store: Store;
  let workspaceId: string;
  beforeEach(async () => {
    store = await createTestStore(kind);
    workspaceId = await workspace(store);
    // The keys' folder, which a key can be attached to only while it is the workspace's.
    await store.folders.create({
      folder: { id: attachedFolder, object: 'folder', name: 'Site', test: true, form_count: 0, created_at: at(0), metadata: {} },
      workspaceId,
      environment: 'test',
    });
  });
  afterEach(async () => {
    await store.close();
  });

  it('when a key is created, then it reads back exactly, by id and by value with its workspace, and is audited', async () => {
    const key = publishableKey(at(1), `svc_pub_test_${'a'.repeat(24)}`);
    const tokenSecret = Buffer.from('00ff10'.repeat(10), 'hex');
    await store.publishableKeys.create({ key, workspaceId, tokenSecret }, audit(workspaceId, 'publishable_key.created'));
    expect(await store.publishableKeys.get(workspaceId, key.id)).toEqual({ key, workspaceId, tokenSecret });
    expect(await store.publishableKeys.get('ws_000000000000000000000000', key.id)).toBeUndefined();
    expect(await store.publishableKeys.findByValue(key.value)).toEqual({
      key,
      workspaceId,
      tokenSecret,
      workspace: await store.workspaces.get(workspaceId),
      hostedPage: false,
    });
    expect(await store.publishableKeys.findByValue(`svc_pub_test_${'b'.repeat(24)}`)).toBeUndefined();
    const events = await store.auditEvents.list(workspaceId, {}, { limit: 10 });
    expect(events.data.map((event) => event.type)).toEqual(['publishable_key.created']);
  });

  it("when a key's form or folder is not the workspace's, then it is refused with RecordNotFound and nothing is written", async () => {
    const other = await workspace(store);
    const key = publishableKey(at(1), `svc_pub_test_${'c'.repeat(24)}`);
    await expect(store.publishableKeys.create({ key, workspaceId: other, tokenSecret: Buffer.alloc(32) }, audit(other))).rejects.toEqual(
      new RecordNotFound('folder', attachedFolder),
    );
    const onForm = { ...key, attachment: { type: 'form' as const, form_id: 'form_000000000000000000000000' } };
    await expect(
      store.publishableKeys.create({ key: onForm, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId)),
    ).rejects.toEqual(new RecordNotFound('form', 'form_000000000000000000000000'));
    expect(await store.publishableKeys.get(other, key.id)).toBeUndefined();
    expect(await store.publishableKeys.get(workspaceId, key.id)).toBeUndefined();
    expect((await store.auditEvents.list(other, {}, { limit: 10 })).data).toEqual([]);
  });

  it('when keys are listed, then newest first, in keyset pages', async () => {
    const keys = [1, 2, 3].map((second) => publishableKey(at(second), `svc_pub_test_${String(second).repeat(24)}`));
    for (const key of keys) await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId));
    const first = await store.publishableKeys.list(workspaceId, { limit: 2 });
    expect(first.data.map((key) => key.id)).toEqual([keys[2]!.id, keys[1]!.id]);
    expect(first.hasMore).toBe(true);
    const second = await store.publishableKeys.list(workspaceId, { limit: 2, startingAfter: keys[1]!.id });
    expect(second.data.map((key) => key.id)).toEqual([keys[0]!.id]);
  });

  it('when a key is revoked twice, then it is revoked once, with one audit event', async () => {
    const key = publishableKey(at(1), `svc_pub_test_${'c'.repeat(24)}`);
    await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId, 'publishable_key.created'));
    const revoked = await store.publishableKeys.revoke(key.id, at(5), audit(workspaceId, 'publishable_key.revoked'));
    expect(revoked).toMatchObject({ status: 'revoked', revoked_at: at(5) });
    const again = await store.publishableKeys.revoke(key.id, at(9), audit(workspaceId, 'publishable_key.revoked'));
    expect(again).toMatchObject({ status: 'revoked', revoked_at: at(5) });
    const events = await store.auditEvents.list(workspaceId, { type: 'publishable_key.revoked' }, { limit: 10 });
    expect(events.data).toHaveLength(1);
  });

  it('when a key is updated, then its name and origins change, the rest stays, it is audited, and it reads back so', async () => {
    const key = publishableKey(at(1), `svc_pub_test_${'u'.repeat(24)}`);
    const tokenSecret = Buffer.from('5a'.repeat(32), 'hex');
    await store.publishableKeys.create({ key, workspaceId, tokenSecret }, audit(workspaceId, 'publishable_key.created'));
    const origins = ['https://shop.acme.example', 'http://127.0.0.1:8080'];
    const updated = await store.publishableKeys.update(
      workspaceId,
      { id: key.id, name: 'Shop', allowed_origins: origins },
      audit(workspaceId, 'publishable_key.updated'),
    );
    const expected = { ...key, name: 'Shop', allowed_origins: origins };
    expect(updated).toEqual(expected);
    expect(await store.publishableKeys.get(workspaceId, key.id)).toEqual({ key: expected, workspaceId, tokenSecret });
    expect((await store.publishableKeys.findByValue(key.value))?.key).toEqual(expected);
    const events = await store.auditEvents.list(workspaceId, { type: 'publishable_key.updated' }, { limit: 10 });
    expect(events.data).toHaveLength(1);
  });

  it('when an update names another workspace’s key, a hosted pages’ key or a revoked key, then it is refused and nothing is written', async () => {
    const key = publishableKey(at(1), `svc_pub_test_${'v'.repeat(24)}`);
    await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId));
    const updated = (id: string) => audit(id, 'publishable_key.updated');
    const changes = { id: key.id, name: 'Taken', allowed_origins: ['https://taken.example'] };
    const other = await workspace(store);
    await expect(store.publishableKeys.update(other, changes, updated(other))).rejects.toEqual(
      new RecordNotFound('publishable_key', key.id),
    );

    const hosted = {
      ...publishableKey(at(2), `svc_pub_test_${'w'.repeat(24)}`),
      allowed_origins: [],
      attachment: { type: 'workspace' as const },
    };
    await store.publishableKeys.createHostedPageKey({ key: hosted, workspaceId, tokenSecret: Buffer.alloc(32) });
    await expect(store.publishableKeys.update(workspaceId, { ...changes, id: hosted.id }, updated(workspaceId))).rejects.toEqual(
      new RecordNotFound('publishable_key', hosted.id),
    );
    expect((await store.publishableKeys.findByValue(hosted.value))?.key.allowed_origins).toEqual([]);

    await store.publishableKeys.revoke(key.id, at(5), audit(workspaceId, 'publishable_key.revoked'));
    await expect(store.publishableKeys.update(workspaceId, changes, updated(workspaceId))).rejects.toEqual(
      new StoreConflict('key_revoked'),
    );
    expect((await store.publishableKeys.get(workspaceId, key.id))?.key).toMatchObject({
      name: key.name,
      allowed_origins: key.allowed_origins,
    });
    for (const id of [other, workspaceId]) {
      expect((await store.auditEvents.list(id, { type: 'publishable_key.updated' }, { limit: 10 })).data).toEqual([]);
    }
  });

  it('when an update or a revocation expects a tag, then it is made only while the stored key still has it', async () => {
    const key = publishableKey(at(1), `svc_pub_test_${'x'.repeat(24)}`);
    await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId));
    const readTag = entityTagOf(key);
    // A use recorded since the read is a change the reader has not seen.
    await store.publishableKeys.touch(key.id, at(3));
    const changes = { id: key.id, name: 'Stale', allowed_origins: key.allowed_origins };
    await expect(store.publishableKeys.update(workspaceId, changes, audit(workspaceId), { expectedTag: readTag })).rejects.toEqual(
      new StoreConflict('changed_since_read'),
    );
    await expect(store.publishableKeys.revoke(key.id, at(4), audit(workspaceId), { expectedTag: readTag })).rejects.toEqual(
      new StoreConflict('changed_since_read'),
    );
    const current = (await store.publishableKeys.get(workspaceId, key.id))!.key;
    expect(current).toMatchObject({ name: key.name, status: 'active', last_used_at: at(3) });

    const renamed = await store.publishableKeys.update(workspaceId, { ...changes, name: 'Current' }, audit(workspaceId), {
      expectedTag: entityTagOf(current),
    });
    expect(renamed.name).toBe('Current');
    const revoked = await store.publishableKeys.revoke(key.id, at(5), audit(workspaceId), { expectedTag: entityTagOf(renamed) });
    expect(revoked).toMatchObject({ status: 'revoked', revoked_at: at(5) });
  });

  it('when a key’s origins change, then the preflights’ answer for each origin changes with them at once', async () => {
    const key = { ...publishableKey(at(1), `svc_pub_test_${'y'.repeat(24)}`), allowed_origins: ['https://before.example'] };
    await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId));
    // Each asked twice, so that a store that remembers its answers has remembered them.
    for (let time = 0; time < 2; time++) {
      expect(await store.publicOrigins.anyKeyAllows('https://before.example')).toBe(true);
      expect(await store.publicOrigins.anyKeyAllows('https://after.example')).toBe(false);
    }
    await store.publishableKeys.update(
      workspaceId,
      { id: key.id, name: key.name, allowed_origins: ['https://after.example'] },
      audit(workspaceId),
    );
    expect(await store.publicOrigins.anyKeyAllows('https://after.example')).toBe(true);
    expect(await store.publicOrigins.anyKeyAllows('https://before.example')).toBe(false);
    // A use of the key is not a change of its origins, and does not change the answers.
    await store.publishableKeys.touch(key.id, at(9));
    expect(await store.publicOrigins.anyKeyAllows('https://after.example')).toBe(true);
  });

  it('when a use is recorded, then last_used_at moves forward only', async () => {
    const key = publishableKey(at(1), `svc_pub_test_${'d'.repeat(24)}`);
    await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId));
    await store.publishableKeys.touch(key.id, at(20));
    await store.publishableKeys.touch(key.id, at(10));
    expect((await store.publishableKeys.get(workspaceId, key.id))?.key.last_used_at).toBe(at(20));
  });

  it('when the hosted pages’ key is made twice, then one is kept, found by value as the service’s and never listed or got', async () => {
    expect(await store.publishableKeys.findHostedPageKey(workspaceId, 'test')).toBeUndefined();
    const tokenSecret = Buffer.from('ab'.repeat(32), 'hex');
    const first = {
      ...publishableKey(at(1), `svc_pub_test_${'h'.repeat(24)}`),
      allowed_origins: [],
      attachment: { type: 'workspace' as const },
    };
    const second = { ...first, id: newId('pk'), value: `svc_pub_test_${'i'.repeat(24)}` };
    expect(await store.publishableKeys.createHostedPageKey({ key: first, workspaceId, tokenSecret })).toEqual({
      key: first,
      workspaceId,
      tokenSecret,
    });
    expect(await store.publishableKeys.createHostedPageKey({ key: second, workspaceId, tokenSecret })).toEqual({
      key: first,
      workspaceId,
      tokenSecret,
    });
    expect(await store.publishableKeys.findHostedPageKey(workspaceId, 'test')).toEqual({ key: first, workspaceId, tokenSecret });
    expect(await store.publishableKeys.findHostedPageKey(workspaceId, 'live')).toBeUndefined();
    expect((await store.publishableKeys.findByValue(first.value))?.hostedPage).toBe(true);
    expect(await store.publishableKeys.findByValue(second.value)).toBeUndefined();
    expect(await store.publishableKeys.get(workspaceId, first.id)).toBeUndefined();
    expect((await store.publishableKeys.list(workspaceId, { limit: 10 })).data).toEqual([]);
  });

  it('when a resume token hash is saved, then it reads back by its submission, bytes and expiry intact', async () => {
    const token = { submissionId: newId('sub'), tokenHash: Buffer.from('ab'.repeat(32), 'hex'), expiresAt: at(30) };
    await store.publishableKeys.saveResumeToken(token);
    expect(await store.publishableKeys.findResumeToken(token.submissionId)).toEqual(token);
    expect(await store.publishableKeys.findResumeToken(newId('sub'))).toBeUndefined();
  });
});
