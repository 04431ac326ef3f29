/**
 * The key pieces that need no server: secret hashing and hints, and the coalesced `last_used_at` writes.
 */
import { describe, expect, it } from 'vitest';
import { coalescedLastUsed } from '../../src/domain/keys/last-used.js';
import { generateSecret, hashesMatch, hashSecret, secretHint, secretPattern } from '../../src/domain/keys/secret.js';
import type { ApiKeyStore } from '../../src/store/types.js';

describe('key secrets', () => {
  it('when a secret is generated, then it carries its environment and matches the documented pattern', () => {
    for (const environment of ['live', 'test'] as const) {
      const secret = generateSecret(environment);
      expect(secret).toMatch(secretPattern);
      expect(secret.startsWith(`svc_${environment}_`)).toBe(true);
    }
  });

  it('when two hashes are compared, then only the same secret matches, and hashes of other lengths never do', () => {
    const hash = hashSecret('svc_live_abc');
    expect(hashSecret('svc_live_abc').equals(hash)).toBe(true);
    expect(hash).toHaveLength(32);
    expect(hashesMatch(hash, hashSecret('svc_live_abc'))).toBe(true);
    expect(hashesMatch(hash, hashSecret('svc_live_abd'))).toBe(false);
    expect(hashesMatch(hash, hash.subarray(0, 16))).toBe(false);
  });

  it('when a listing shows a secret, then the hint is its prefix and its last four characters only', () => {
    expect(secretHint('svc_live_0123456789abcdefWXYZ')).toBe('svc_live_…WXYZ');
    expect(secretHint('svc_test_0123456789abcdefWXYZ')).toBe('svc_test_…WXYZ');
  });
});

describe('coalescedLastUsed', () => {
  const recordingStore = (fail: () => boolean = () => false) => {
    const writes: [string, string][] = [];
    const store = {
      touch: async (id: string, at: string) => {
        if (fail()) throw new Error('database is locked');
        writes.push([id, at]);
      },
    } as Pick<ApiKeyStore, 'touch'> as ApiKeyStore;
    return { store, writes };
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('when a key is used several times within the interval, then one write now and the newest time at the flush', async () => {
    const { store, writes } = recordingStore();
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    recorder.record('key_1', new Date('2026-01-01T00:00:10.000Z'));
    recorder.record('key_1', new Date('2026-01-01T00:00:20.000Z'));
    await settle();
    expect(writes).toEqual([['key_1', '2026-01-01T00:00:00.000Z']]);
    await recorder.flush();
    expect(writes).toEqual([
      ['key_1', '2026-01-01T00:00:00.000Z'],
      ['key_1', '2026-01-01T00:00:20.000Z'],
    ]);
    await recorder.flush();
    expect(writes).toHaveLength(2);
  });

  it('when a use comes exactly one interval after the last write, then it is written at once', async () => {
    const { store, writes } = recordingStore();
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    recorder.record('key_1', new Date('2026-01-01T00:01:00.000Z'));
    await settle();
    expect(writes).toEqual([
      ['key_1', '2026-01-01T00:00:00.000Z'],
      ['key_1', '2026-01-01T00:01:00.000Z'],
    ]);
    await recorder.flush();
    expect(writes).toHaveLength(2);
  });

  it('when two keys are used, then each has its own interval', async () => {
    const { store, writes } = recordingStore();
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    recorder.record('key_2', new Date('2026-01-01T00:00:01.000Z'));
    await settle();
    expect(writes).toEqual([
      ['key_1', '2026-01-01T00:00:00.000Z'],
      ['key_2', '2026-01-01T00:00:01.000Z'],
    ]);
  });

  it('when an immediate write fails, then the flush writes that time instead of losing it', async () => {
    let failing = true;
    const { store, writes } = recordingStore(() => failing);
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    await settle();
    failing = false;
    await recorder.flush();
    expect(writes).toEqual([['key_1', '2026-01-01T00:00:00.000Z']]);
  });

  it('when an immediate write is still on its way, then the flush resolves only once it is written', async () => {
    const writes: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = {
      touch: async (_id: string, at: string) => {
        await gate;
        writes.push(at);
      },
    } as Pick<ApiKeyStore, 'touch'> as ApiKeyStore;
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    let flushed = false;
    const flush = recorder.flush().then(() => {
      flushed = true;
    });
    await settle();
    expect(flushed).toBe(false);
    release();
    await flush;
    expect(writes).toEqual(['2026-01-01T00:00:00.000Z']);
  });

  it('when an immediate write fails after a newer use was recorded, then the newer time is the one kept', async () => {
    let failing = true;
    const { store, writes } = recordingStore(() => failing);
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    recorder.record('key_1', new Date('2026-01-01T00:00:30.000Z'));
    await settle();
    failing = false;
    await recorder.flush();
    expect(writes).toEqual([['key_1', '2026-01-01T00:00:30.000Z']]);
  });

  it('when a flush fails, then the use stays pending for the next flush', async () => {
    let failing = false;
    const { store, writes } = recordingStore(() => failing);
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    recorder.record('key_1', new Date('2026-01-01T00:00:30.000Z'));
    await settle();
    failing = true;
    await expect(recorder.flush()).rejects.toThrow('database is locked');
    failing = false;
    await recorder.flush();
    expect(writes).toEqual([
      ['key_1', '2026-01-01T00:00:00.000Z'],
      ['key_1', '2026-01-01T00:00:30.000Z'],
    ]);
  });

  it('when a flush has written a use, then the interval restarts from it', async () => {
    const { store, writes } = recordingStore();
    const recorder = coalescedLastUsed(store, 60_000);
    recorder.record('key_1', new Date('2026-01-01T00:00:00.000Z'));
    recorder.record('key_1', new Date('2026-01-01T00:00:50.000Z'));
    await recorder.flush();
    // 70 s after the first write but only 20 s after the flushed one: coalesced.
    recorder.record('key_1', new Date('2026-01-01T00:01:10.000Z'));
    await settle();
    expect(writes.map(([, at]) => at)).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:50.000Z']);
  });
});
