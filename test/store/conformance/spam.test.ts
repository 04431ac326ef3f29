/**
 * One suite, every store: what spam protection keeps. A challenge or started token is spent once (however many
 * requests race for it), a spend records all its claims or none, and each is forgotten after it expires; a caught
 * partial submission is found and completed once; honeypot catches are counted per form, environment and day;
 * preflights find the origins that active publishable keys allow.
 */
import { createHash } from 'node:crypto';
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

  const challenge = (letter: string, expiresAt = '2026-05-04T09:10:00.000Z') => ({ signature: letter.repeat(64), expiresAt });
  const startedToken = (text: string, expiresAt = '2026-05-04T09:10:00.000Z') => ({
    hash: createHash('sha256').update(text).digest(),
    expiresAt,
  });

  it('when a challenge is spent, then only the first spend wins, also when spends race', async () => {
    expect(await store.spam.spend({ challenge: challenge('a') })).toBe('spent');
    expect(await store.spam.spend({ challenge: challenge('a') })).toBe('challenge_used');
    const racing = await Promise.all([1, 2, 3, 4].map(() => store.spam.spend({ challenge: challenge('b') })));
    expect(racing.sort()).toEqual(['challenge_used', 'challenge_used', 'challenge_used', 'spent']);
  });

  it('when a started token is spent, then only the first spend wins, also when spends race', async () => {
    expect(await store.spam.spend({ startedToken: startedToken('one') })).toBe('spent');
    expect(await store.spam.spend({ startedToken: startedToken('one') })).toBe('started_token_used');
    const racing = await Promise.all([1, 2, 3, 4].map(() => store.spam.spend({ startedToken: startedToken('two') })));
    expect(racing.sort()).toEqual(['spent', 'started_token_used', 'started_token_used', 'started_token_used']);
  });

  it('when spent claims are refunded, then they can be spent again, and other claims stay spent', async () => {
    expect(await store.spam.spend({ challenge: challenge('r'), startedToken: startedToken('refunded') })).toBe('spent');
    expect(await store.spam.spend({ challenge: challenge('s'), startedToken: startedToken('kept') })).toBe('spent');
    await store.spam.refund({ challenge: challenge('r'), startedToken: startedToken('refunded') });
    await store.spam.refund({ challenge: challenge('never spent') });
    expect(await store.spam.spend({ challenge: challenge('r'), startedToken: startedToken('refunded') })).toBe('spent');
    expect(await store.spam.spend({ challenge: challenge('s') })).toBe('challenge_used');
    expect(await store.spam.spend({ startedToken: startedToken('kept') })).toBe('started_token_used');
  });

  it('when one claim of a spend was spent before, then the spend records none of its claims', async () => {
    await store.spam.spend({ startedToken: startedToken('used') });
    expect(await store.spam.spend({ challenge: challenge('e'), startedToken: startedToken('used') })).toBe('started_token_used');
    expect(await store.spam.spend({ challenge: challenge('e') })).toBe('spent');
    await store.spam.spend({ challenge: challenge('f') });
    expect(await store.spam.spend({ challenge: challenge('f'), startedToken: startedToken('fresh') })).toBe('challenge_used');
    expect(await store.spam.spend({ startedToken: startedToken('fresh') })).toBe('spent');
    expect(await store.spam.spend({})).toBe('spent');
  });

  it('when claims racing for one challenge carry different started tokens, then exactly one spends, and the others keep their tokens', async () => {
    const tokens = ['r1', 'r2', 'r3', 'r4'];
    const racing = await Promise.all(
      tokens.map((text) => store.spam.spend({ challenge: challenge('9'), startedToken: startedToken(text) })),
    );
    expect(racing.filter((outcome) => outcome === 'spent')).toHaveLength(1);
    const kept = await Promise.all(tokens.map((text) => store.spam.spend({ startedToken: startedToken(text) })));
    expect(kept.filter((outcome) => outcome === 'spent')).toHaveLength(3);
  });

  it('when expired claims and catches are purged, then only those are forgotten', async () => {
    await store.spam.spend({
      challenge: challenge('c', '2026-05-04T09:00:00.000Z'),
      startedToken: startedToken('old', '2026-05-04T09:00:00.000Z'),
    });
    await store.spam.spend({
      challenge: challenge('d', '2026-05-04T10:00:00.000Z'),
      startedToken: startedToken('new', '2026-05-04T10:00:00.000Z'),
    });
    const caught = (id: string, expiresAt: string) => ({
      submissionId: id,
      workspaceId: newId('ws'),
      environment: 'live' as const,
      formId: newId('form'),
      tokenHash: Buffer.alloc(32, 7),
      completed: false,
      expiresAt,
    });
    const [old, current] = [newId('sub'), newId('sub')];
    await store.spam.recordCaught(caught(old, '2026-05-04T09:00:00.000Z'));
    await store.spam.recordCaught(caught(current, '2026-05-04T10:00:00.000Z'));
    expect(await store.spam.purgeExpired('2026-05-04T09:30:00.000Z', 100)).toBe(3);
    expect(await store.spam.spend({ challenge: challenge('c') })).toBe('spent');
    expect(await store.spam.spend({ startedToken: startedToken('old') })).toBe('spent');
    expect(await store.spam.spend({ challenge: challenge('d') })).toBe('challenge_used');
    expect(await store.spam.spend({ startedToken: startedToken('new') })).toBe('started_token_used');
    expect(await store.spam.findCaught(old)).toBeUndefined();
    expect(await store.spam.findCaught(current)).toBeDefined();
  });

  it('when a purge finds more than its limit, then it forgets at most the limit per kind and reports what it forgot', async () => {
    for (const letter of ['1', '2', '3']) await store.spam.spend({ challenge: challenge(letter, '2026-05-04T09:00:00.000Z') });
    expect(await store.spam.purgeExpired('2026-05-04T09:30:00.000Z', 2)).toBe(2);
    expect(await store.spam.purgeExpired('2026-05-04T09:30:00.000Z', 2)).toBe(1);
    expect(await store.spam.purgeExpired('2026-05-04T09:30:00.000Z', 2)).toBe(0);
  });

  it('when a caught submission is recorded, then it is found as recorded, and a partial one is completed once', async () => {
    const caught = {
      submissionId: newId('sub'),
      workspaceId: newId('ws'),
      environment: 'test' as const,
      formId: newId('form'),
      tokenHash: createHash('sha256').update('srt_token').digest(),
      completed: false,
      expiresAt: '2026-06-03T09:00:00.000Z',
    };
    await store.spam.recordCaught(caught);
    expect(await store.spam.findCaught(caught.submissionId)).toEqual(caught);
    expect(await store.spam.findCaught(newId('sub'))).toBeUndefined();
    const racing = await Promise.all([1, 2, 3].map(() => store.spam.completeCaught(caught.submissionId)));
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await store.spam.completeCaught(caught.submissionId)).toBe(false);
    expect(await store.spam.findCaught(caught.submissionId)).toEqual({ ...caught, completed: true });
    expect(await store.spam.completeCaught(newId('sub'))).toBe(false);
    const done = { ...caught, submissionId: newId('sub'), tokenHash: Buffer.alloc(0), completed: true };
    await store.spam.recordCaught(done);
    expect(await store.spam.findCaught(done.submissionId)).toEqual(done);
    expect(await store.spam.completeCaught(done.submissionId)).toBe(false);
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
