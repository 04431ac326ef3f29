import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idempotencyKeyHash, openResponse, sealResponse } from '../../src/http/sealed-response.js';
import type { Store } from '../../src/store/types.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';

const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)).toISOString();
const day = 24 * 3600;

describe.each(storeKinds)('idempotency keys in the %s store', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await createTestStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  it('when a claim is still running, then a second claim is an in-progress conflict', async () => {
    expect(await store.idempotency.claim('key_a', 'h1', 'f1', at(0), day)).toEqual({ outcome: 'claimed' });
    expect(await store.idempotency.claim('key_a', 'h1', 'f1', at(30), day)).toEqual({ outcome: 'conflict', reason: 'in_progress' });
  });

  it('when a claim was abandoned for a minute (the process died), then a retry takes it over', async () => {
    await store.idempotency.claim('key_a', 'h1', 'f1', at(0), day);
    expect(await store.idempotency.claim('key_a', 'h1', 'f1', at(61), day)).toEqual({ outcome: 'claimed' });
  });

  it('when a response was stored, then it is replayed for the same request and refused for another', async () => {
    await store.idempotency.claim('key_a', 'h1', 'f1', at(0), day);
    await store.idempotency.complete({ ownerId: 'key_a', keyHash: 'h1', sealedResponse: 'sealed' });
    expect(await store.idempotency.claim('key_a', 'h1', 'f1', at(3600), day)).toEqual({ outcome: 'replay', sealedResponse: 'sealed' });
    expect(await store.idempotency.claim('key_a', 'h1', 'f2', at(3600), day)).toEqual({ outcome: 'conflict', reason: 'different_request' });
  });

  it('when a stored response holds a secret, then the database holds neither the key nor the secret in the clear', async () => {
    const secret = 'svc_live_abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    const hash = idempotencyKeyHash('key_a', 'retry-me');
    await store.idempotency.claim('key_a', hash, 'f1', at(0), day);
    await store.idempotency.complete({
      ownerId: 'key_a',
      keyHash: hash,
      sealedResponse: sealResponse('key_a', 'retry-me', { status: 201, headers: {}, body: { secret } }),
    });
    const rows = JSON.stringify(await storedRows(store, 'SELECT * FROM idempotency_keys'));
    expect(rows).not.toContain(secret);
    expect(rows).not.toContain('retry-me');
    const claim = await store.idempotency.claim('key_a', hash, 'f1', at(1), day);
    expect(claim.outcome === 'replay' && openResponse('key_a', 'retry-me', claim.sealedResponse).body).toEqual({ secret });
    expect(() => claim.outcome === 'replay' && openResponse('key_a', 'another-key', claim.sealedResponse)).toThrow();
  });
});
