/**
 * The bounds on long work (src/domain/concurrency-slots.ts): export slots per key and per workspace, `q` scan
 * turns per workspace with a short queue, and a stream that gives its slot back however it ends.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import {
  concurrencyLimits,
  defaultConcurrency,
  EXPORT_RETRY_AFTER_SECONDS,
  ExportSlots,
  releasedWhenDone,
  SCAN_RETRY_AFTER_SECONDS,
  ScanTurns,
  streamHolding,
  unbounded,
} from '../src/domain/concurrency-slots.js';
import { isAppError } from '../src/domain/errors.js';
import { numberAt, textAt } from './support/openapi-files.js';

function refusal(take: () => unknown) {
  try {
    take();
  } catch (error) {
    if (isAppError(error)) return { status: error.status, code: error.code, details: error.details };
    throw error;
  }
  return undefined;
}

describe('ExportSlots', () => {
  it('when a key holds its limit, then its next export is 429 too_many_exports while another key of the workspace still gets one', () => {
    const slots = new ExportSlots({ exportsPerKey: 2, exportsPerWorkspace: 3 });
    slots.take('ws_a', 'key_1');
    slots.take('ws_a', 'key_1');
    expect(refusal(() => slots.take('ws_a', 'key_1'))).toEqual({
      status: 429,
      code: 'too_many_exports',
      details: { retry_after_seconds: 10 },
    });
    expect(refusal(() => slots.take('ws_a', 'key_2'))).toBeUndefined();
    expect(slots.heldBy('ws_a')).toBe(3);
  });

  it('when a workspace holds its limit, then every key of it is refused, other workspaces are not, and a refusal takes nothing', () => {
    const slots = new ExportSlots({ exportsPerKey: 2, exportsPerWorkspace: 2 });
    slots.take('ws_a', 'key_1');
    const second = slots.take('ws_a', 'key_2');
    expect(refusal(() => slots.take('ws_a', 'key_3'))?.code).toBe('too_many_exports');
    expect(refusal(() => slots.take('ws_b', 'key_9'))).toBeUndefined();
    second.release();
    expect(slots.heldBy('ws_a')).toBe(1);
    expect(refusal(() => slots.take('ws_a', 'key_3'))).toBeUndefined();
  });

  it('when a slot is released twice, then it is given back once', () => {
    const slots = new ExportSlots({ exportsPerKey: 5, exportsPerWorkspace: 5 });
    const first = slots.take('ws_a', 'key_1');
    slots.take('ws_a', 'key_1');
    first.release();
    first.release();
    expect(slots.heldBy('ws_a')).toBe(1);
  });
});

/** A scan that runs until `finish` is called. */
function heldScan() {
  let finish!: (value: string) => void;
  const done = new Promise<string>((resolve) => {
    finish = resolve;
  });
  return { finish, scan: () => done };
}

describe('ScanTurns', () => {
  it('when the running and waiting places of a workspace are taken, then the next scan is 429 too_many_searches and others run at once', async () => {
    const turns = new ScanTurns({ scansPerWorkspace: 1, scanQueuePerWorkspace: 1 });
    const first = heldScan();
    const running = turns.run('ws_a', first.scan);
    const waiting = turns.run('ws_a', async () => 'second');
    expect(turns.heldBy('ws_a')).toEqual({ running: 1, waiting: 1 });
    await expect(turns.run('ws_a', async () => 'third')).rejects.toMatchObject({
      status: 429,
      code: 'too_many_searches',
      details: { retry_after_seconds: 1 },
    });
    expect(await turns.run('ws_b', async () => 'other workspace')).toBe('other workspace');
    first.finish('first');
    expect(await Promise.all([running, waiting])).toEqual(['first', 'second']);
    expect(turns.heldBy('ws_a')).toEqual({ running: 0, waiting: 0 });
  });

  it('when a scan may always wait, then a full queue takes it in turn instead of refusing it', async () => {
    const turns = new ScanTurns({ scansPerWorkspace: 1, scanQueuePerWorkspace: 1 });
    const first = heldScan();
    const running = turns.run('ws_a', first.scan);
    const waiting = turns.run('ws_a', async () => 'queued');
    const download = turns.run('ws_a', async () => 'export page', { alwaysWait: true });
    expect(turns.heldBy('ws_a')).toEqual({ running: 1, waiting: 2 });
    first.finish('first');
    expect(await Promise.all([running, waiting, download])).toEqual(['first', 'queued', 'export page']);
  });

  it('when a running scan fails, then its turn passes to the next in arrival order', async () => {
    const turns = new ScanTurns({ scansPerWorkspace: 1, scanQueuePerWorkspace: 3 });
    const order: string[] = [];
    const first = turns.run('ws_a', async () => {
      throw new Error('store failed');
    });
    const later = ['b', 'c', 'd'].map((name) => turns.run('ws_a', async () => void order.push(name)));
    await expect(first).rejects.toThrow('store failed');
    await Promise.all(later);
    expect(order).toEqual(['b', 'c', 'd']);
    expect(turns.heldBy('ws_a')).toEqual({ running: 0, waiting: 0 });
  });

  it('when a turn is handed to a waiting scan, then a newcomer does not overtake it', async () => {
    const turns = new ScanTurns({ scansPerWorkspace: 1, scanQueuePerWorkspace: 1 });
    const first = heldScan();
    const running = turns.run('ws_a', first.scan);
    const second = heldScan();
    const waiting = turns.run('ws_a', second.scan);
    first.finish('first');
    await running;
    // The waiting scan holds the turn now, so a newcomer waits in the queue rather than running beside it.
    const newcomer = turns.run('ws_a', async () => 'newcomer');
    expect(turns.heldBy('ws_a')).toEqual({ running: 1, waiting: 1 });
    second.finish('second');
    expect(await Promise.all([waiting, newcomer])).toEqual(['second', 'newcomer']);
  });
});

describe('releasedWhenDone', () => {
  async function* chunks(fail = false) {
    yield 'a';
    if (fail) throw new Error('read failed');
    yield 'b';
  }
  const counting = () => {
    const slot = { released: 0, release: () => void slot.released++ };
    return slot;
  };

  it('when the stream is read to its end, then the slot is released', async () => {
    const slot = counting();
    const read: string[] = [];
    for await (const chunk of releasedWhenDone(chunks(), slot)) {
      expect(slot.released).toBe(0);
      read.push(chunk);
    }
    expect(read).toEqual(['a', 'b']);
    expect(slot.released).toBe(1);
  });

  it('when reading fails, then the slot is released and the error goes on', async () => {
    const slot = counting();
    const iterator = releasedWhenDone(chunks(true), slot)[Symbol.asyncIterator]();
    await iterator.next();
    await expect(iterator.next()).rejects.toThrow('read failed');
    expect(slot.released).toBe(1);
  });

  it('when the stream is abandoned before its first chunk, then the slot is released all the same', async () => {
    const slot = counting();
    await releasedWhenDone(chunks(), slot)[Symbol.asyncIterator]().return?.();
    expect(slot.released).toBe(1);
  });
});

describe('what a refusal tells the caller', () => {
  const messageOf = (take: () => unknown) => {
    try {
      take();
    } catch (error) {
      if (isAppError(error)) return error.message;
      throw error;
    }
    return undefined;
  };

  it('when a key or a workspace is at its export bound, then the message names that bound and the wait', () => {
    const slots = new ExportSlots({ exportsPerKey: 1, exportsPerWorkspace: 2 });
    slots.take('ws_a', 'key_1');
    expect(messageOf(() => slots.take('ws_a', 'key_1'))).toBe('More than 1 exports at a time with this key; retry after 10 seconds.');
    slots.take('ws_a', 'key_2');
    expect(messageOf(() => slots.take('ws_a', 'key_3'))).toBe('More than 2 exports at a time in this workspace; retry after 10 seconds.');
  });

  it('when the search queue is full, then the message counts the running and the waiting places together', async () => {
    const turns = new ScanTurns({ scansPerWorkspace: 2, scanQueuePerWorkspace: 3 });
    const held = heldScan();
    const taken = Array.from({ length: 5 }, () => turns.run('ws_a', held.scan));
    await expect(turns.run('ws_a', held.scan)).rejects.toThrow(
      'More than 5 searches with q at a time in this workspace; retry after 1 second.',
    );
    held.finish('done');
    await Promise.all(taken);
  });
});

describe('slots that bound nothing, and streams without a return of their own', () => {
  it('when a stream opened without a bound is read to its end, then releasing its slot does nothing and fails nothing', async () => {
    async function* chunks() {
      yield 'a';
      yield 'b';
    }
    const stream = await streamHolding(unbounded, async () => chunks());
    const read: string[] = [];
    for await (const chunk of stream) read.push(chunk);
    expect(read).toEqual(['a', 'b']);
  });

  it('when opening a stream fails (a problem answer instead), then its slot is released at once and the error goes on', async () => {
    const slots = concurrencyLimits({ ...defaultConcurrency, exportsPerKey: 1 });
    const slot = slots.exports.take('ws_a', 'key_1');
    const failing = async (): Promise<AsyncIterable<string>> => {
      throw new Error('form not found');
    };
    await expect(streamHolding(slot, failing)).rejects.toThrow('form not found');
    expect(slots.exports.heldBy('ws_a')).toBe(0);
    expect(refusal(() => slots.exports.take('ws_a', 'key_1'))).toBeUndefined();
  });

  it('when a stream whose source cannot be returned is abandoned, then it reports itself done and releases the slot', async () => {
    let released = 0;
    // A hand-made iterator with `next` only, as the protocol allows.
    const source: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: 'a' }) }),
    };
    const iterator = releasedWhenDone(source, { release: () => void released++ })[Symbol.asyncIterator]();
    await iterator.next();
    expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
    expect(released).toBe(1);
  });
});

describe('the document states the default bounds', () => {
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  const { exportsPerKey, exportsPerWorkspace, scansPerWorkspace, scanQueuePerWorkspace, streamStallTimeoutMs } = defaultConcurrency;

  it('when nothing is configured, then the export and search bounds are the ones the operations and ErrorCode state', () => {
    const exportText = flat(textAt('paths/submissions_export', 'get', 'description'));
    expect(exportText).toContain(`may hold ${exportsPerKey} exports open at once and a workspace ${exportsPerWorkspace} over all`);
    expect(exportText).toContain(`has been taken for ${streamStallTimeoutMs / 1000} seconds`);
    expect(flat(textAt('paths/submissions', 'get', 'description'))).toContain(
      `${scansPerWorkspace} run at a time and ${scanQueuePerWorkspace} more wait for their turn`,
    );
    const codes = flat(textAt('components/schemas/ErrorCode', 'description'));
    expect(codes).toContain(`already holds ${exportsPerKey} open exports, or its workspace ${exportsPerWorkspace}`);
    expect(codes).toContain(`already runs ${scansPerWorkspace} submission searches with \`q\` and ${scanQueuePerWorkspace} more wait`);
  });

  it('when an export or search is refused, then the examples show the Retry-After the server sends', () => {
    const example = (response: string, code: string) =>
      numberAt(
        `components/responses/${response}`,
        'content',
        'application/problem+json',
        'examples',
        code,
        'value',
        'details',
        'retry_after_seconds',
      );
    expect(example('ExportTooManyRequests', 'too_many_exports')).toBe(EXPORT_RETRY_AFTER_SECONDS);
    expect(example('SearchTooManyRequests', 'too_many_searches')).toBe(SCAN_RETRY_AFTER_SECONDS);
  });
});

describe('the bounds from the environment', () => {
  it('when no variable is set, then the defaults apply; when set, they are read', () => {
    expect(loadConfig({}).concurrency).toEqual(defaultConcurrency);
    const env = {
      EXPORT_STALL_TIMEOUT_MS: '5000',
      EXPORTS_PER_KEY: '1',
      EXPORTS_PER_WORKSPACE: '3',
      SEARCH_SCANS_PER_WORKSPACE: '4',
      SEARCH_SCAN_QUEUE_PER_WORKSPACE: '0',
    };
    expect(loadConfig(env).concurrency).toEqual({
      streamStallTimeoutMs: 5000,
      exportsPerKey: 1,
      exportsPerWorkspace: 3,
      scansPerWorkspace: 4,
      scanQueuePerWorkspace: 0,
    });
  });

  it('when a bound would refuse every export or search, then the server does not start', () => {
    for (const name of ['EXPORTS_PER_KEY', 'EXPORTS_PER_WORKSPACE', 'SEARCH_SCANS_PER_WORKSPACE', 'EXPORT_STALL_TIMEOUT_MS']) {
      expect(() => loadConfig({ [name]: '0' }), name).toThrow(ConfigError);
    }
  });
});
