/**
 * The image files of forms' logos, on both stores: bytes staged under the form's ownership, then the form update
 * that names one of them keeps that one only, in its own transaction; an image staged by an upload whose update never
 * came stays unserved until the form's next update. Deleted with the form.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { RecordNotFound } from '../../src/store/errors.js';
import { logoPath } from '../../src/store/rows/forms.js';
import type { Store } from '../../src/store/types.js';
import { pngImage } from '../support/images.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';
import { at, audit, form, workspace } from './conformance/fixtures.js';

const image = (seed: number) => {
  const bytes = pngImage(16, 16, seed);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), contentType: 'image/png' as const };
};

describe.each(storeKinds)('the %s store’s logo images', (kind) => {
  let store: Store;
  let owner: string;
  beforeEach(async () => {
    store = await createTestStore(kind);
    owner = await workspace(store);
  });
  afterEach(async () => {
    await store.close();
  });

  const live = () => ({ workspaceId: owner, environment: 'live' as const });
  const hashesOf = async (formId: string) =>
    (await storedRows(store, 'SELECT sha256 FROM form_logos WHERE form_id = ? ORDER BY sha256', formId)).map((row) => row.sha256);
  const stage = (formId: string, staged: ReturnType<typeof image>, workspaceId = owner) =>
    store.formLogos.stage(workspaceId, formId, { ...staged, createdAt: at(5) });
  /** The form's next version, naming `named` as its logo (or none). */
  const naming = (current: Schema<'Form'>, named: ReturnType<typeof image> | null): Schema<'Form'> => ({
    ...current,
    version: current.version + 1,
    updated_at: at(10 + current.version),
    logo: named && {
      url: logoPath(current.id, { sha256: named.sha256, content_type: named.contentType }),
      content_type: 'image/png',
      width: 16,
      height: 16,
      size: named.bytes.length,
    },
  });

  it('when an image is staged, then its bytes are kept by hash; staging the same hash again keeps the first', async () => {
    const created = form('staged');
    await store.forms.create({ form: created, ...live() });
    const first = image(1);
    await stage(created.id, first);
    await stage(created.id, first);
    const kept = await store.formLogos.get(created.id, first.sha256);
    expect(kept?.contentType).toBe('image/png');
    expect(Buffer.compare(kept!.bytes, first.bytes)).toBe(0);
    expect(await store.formLogos.get(created.id, image(2).sha256)).toBeUndefined();
    expect(await hashesOf(created.id)).toEqual([first.sha256]);
  });

  it('when the form is updated to name an image, then every other image of it goes, in that update; naming none removes all', async () => {
    const created = form('named');
    await store.forms.create({ form: created, ...live() });
    const [a, b] = [image(1), image(2)];
    await stage(created.id, a);
    await stage(created.id, b);
    const withA = naming(created, a);
    await store.forms.update({ form: withA, ...live() }, { keepVersions: 100 });
    expect(await hashesOf(created.id)).toEqual([a.sha256]);
    expect((await store.forms.get(owner, created.id))?.form.logo?.url).toBe(withA.logo!.url);
    await store.forms.update({ form: naming(withA, null), ...live() }, { keepVersions: 100 });
    expect(await hashesOf(created.id)).toEqual([]);
  });

  it('when the update that would name a staged image is refused (a stale tag), then the image stays unnamed until the next update', async () => {
    const created = form('stale');
    await store.forms.create({ form: created, ...live() });
    const staged = image(3);
    await stage(created.id, staged);
    await expect(
      store.forms.update({ form: naming(created, staged), ...live() }, { keepVersions: 100, expectedTag: '"stale"' }),
    ).rejects.toThrow();
    expect(await hashesOf(created.id)).toEqual([staged.sha256]);
    expect((await store.forms.get(owner, created.id))?.form.logo).toBeNull();
    await store.forms.update({ form: { ...created, name: 'Renamed', version: 2, updated_at: at(20) }, ...live() }, { keepVersions: 100 });
    expect(await hashesOf(created.id)).toEqual([]);
  });

  it('when another workspace stages an image for the form, then RecordNotFound and nothing is stored', async () => {
    const created = form('theirs');
    await store.forms.create({ form: created, ...live() });
    const stranger = await workspace(store);
    await expect(stage(created.id, image(4), stranger)).rejects.toEqual(new RecordNotFound('form', created.id));
    await expect(stage('form_000000000000000000000000', image(4))).rejects.toEqual(
      new RecordNotFound('form', 'form_000000000000000000000000'),
    );
    expect(await hashesOf(created.id)).toEqual([]);
  });

  it('when the form is deleted, then its images, named or staged, go with it', async () => {
    const created = form('deleted');
    await store.forms.create({ form: created, ...live() });
    const [a, b] = [image(5), image(6)];
    await stage(created.id, a);
    await store.forms.update({ form: naming(created, a), ...live() }, { keepVersions: 100 });
    await stage(created.id, b);
    await store.forms.delete(owner, created.id, at(30), { revokedKey: () => audit(owner, 'api_key.revoked') });
    expect(await hashesOf(created.id)).toEqual([]);
  });
});
