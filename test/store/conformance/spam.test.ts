/**
 * One suite, every store: what spam protection keeps. A used challenge is claimed once (however many requests race
 * for it) and forgotten after it expires; honeypot catches are counted per form, environment and day; preflights
 * find the origins that active publishable keys allow.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/ids.js';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storeKinds } from '../../support/stores.js';
import { at, audit, workspace } from './fixtures.js';

describe.each(storeKinds)('spam protection on the %s store', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await createTestStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  it('when a challenge is claimed, then only the first claim wins, also when claims race', async () => {
    expect(await store.spam.claimChallenge('a'.repeat(64), '2026-05-04T09:10:00.000Z')).toBe(true);
    expect(await store.spam.claimChallenge('a'.repeat(64), '2026-05-04T09:10:00.000Z')).toBe(false);
    const racing = await Promise.all([1, 2, 3, 4].map(() => store.spam.claimChallenge('b'.repeat(64), '2026-05-04T09:10:00.000Z')));
    expect(racing.filter(Boolean)).toHaveLength(1);
  });

  it('when expired challenges are purged, then only those are forgotten', async () => {
    await store.spam.claimChallenge('c'.repeat(64), '2026-05-04T09:00:00.000Z');
    await store.spam.claimChallenge('d'.repeat(64), '2026-05-04T10:00:00.000Z');
    expect(await store.spam.purgeExpiredChallenges('2026-05-04T09:30:00.000Z', 100)).toBe(1);
    expect(await store.spam.claimChallenge('c'.repeat(64), '2026-05-04T09:00:00.000Z')).toBe(true);
    expect(await store.spam.claimChallenge('d'.repeat(64), '2026-05-04T10:00:00.000Z')).toBe(false);
  });

  it('when honeypot catches are counted, then a range sums its days, per form and environment', async () => {
    const formId = newId('form');
    for (const day of ['2026-05-03', '2026-05-04', '2026-05-04', '2026-05-06']) await store.spam.countSpam(formId, 'live', day);
    await store.spam.countSpam(formId, 'test', '2026-05-04');
    expect(await store.spam.spamCount(formId, 'live', '2026-05-04', '2026-05-05')).toBe(2);
    expect(await store.spam.spamCount(formId, 'live', '2026-05-01', '2026-05-31')).toBe(4);
    expect(await store.spam.spamCount(formId, 'test', '2026-05-01', '2026-05-31')).toBe(1);
    expect(await store.spam.spamCount(newId('form'), 'live', '2026-05-01', '2026-05-31')).toBe(0);
  });

  it('when an active key allows an origin, then preflights find it; a revoked key’s origins are not found', async () => {
    const workspaceId = await workspace(store);
    const key = {
      id: newId('pk'),
      object: 'publishable_key' as const,
      name: 'Website',
      environment: 'live' as const,
      value: `svc_pub_live_${'a'.repeat(24)}`,
      allowed_origins: ['https://www.acme.example', 'https://shop.acme.example:8443'],
      attachment: { type: 'workspace' as const },
      status: 'active' as const,
      revoked_at: null,
      last_used_at: null,
      created_at: at(1),
    };
    await store.publishableKeys.create({ key, workspaceId, tokenSecret: Buffer.alloc(32) }, audit(workspaceId));
    expect(await store.publicOrigins.anyKeyAllows('https://shop.acme.example:8443')).toBe(true);
    expect(await store.publicOrigins.anyKeyAllows('https://shop.acme.example')).toBe(false);
    await store.publishableKeys.revoke(key.id, at(2), audit(workspaceId));
    expect(await store.publicOrigins.anyKeyAllows('https://www.acme.example')).toBe(false);
  });
});
