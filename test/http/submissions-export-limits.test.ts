/**
 * No export is held forever and one workspace's long requests cannot crowd out another's
 * (src/domain/concurrency-slots.ts, the stream writer in src/http/dispatch.ts): exports at a time per key and per
 * workspace, each slot given back however its download ends, a client that stops reading cut off after the stall
 * timeout, and `q` searches taking turns per workspace. The store's list is wrapped so a test can hold a read
 * (a gate), fail one, or serve an endless list of large rows that no socket buffer can hold.
 */
import tls from 'node:tls';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/ids.js';
import type { Page } from '../../src/store/page.js';
import type { SubmissionStore } from '../../src/store/submission-store.js';
import { createForm, createKey, type Form, type Submission, submit } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi, type WatchedApi } from '../support/http-checks.js';
import { demoForm, noBudgetAnswers } from './submissions-support.js';

const STALL_MS = 1_000;
const concurrency = {
  exportsPerKey: 2,
  exportsPerWorkspace: 3,
  streamStallTimeoutMs: STALL_MS,
  scansPerWorkspace: 1,
  scanQueuePerWorkspace: 1,
};
const api = useWatchedApi({ rateLimits: generousLimits, concurrency });

type List = SubmissionStore['list'];
/** Replaces the store's list while set; reset after each test. */
let listing: ((real: List, ...args: Parameters<List>) => Promise<Page<Submission>>) | undefined;
let form: Form;
let template: Submission;
let secondKey: string;
let thirdKey: string;
let otherWorkspaceKey: string;

beforeAll(async () => {
  const submissions = api.store.submissions;
  const real: List = submissions.list.bind(submissions);
  submissions.list = (...args) => (listing ? listing(real, ...args) : real(...args));
  form = await createForm(api, demoForm({ name: 'Export limits funnel' }));
  template = await submit(api, { form_id: form.id, answers: noBudgetAnswers() });
  secondKey = (await createKey(api, { environment: 'live', scope: 'read' })).secret;
  thirdKey = (await createKey(api, { environment: 'live', scope: 'read' })).secret;
  otherWorkspaceKey = (await api.otherWorkspace()).live_admin_key;
});

afterEach(() => {
  listing = undefined;
});

const workspaceId = () => api.workspace.workspace_id;
const exportsHeld = () => api.services.concurrency!.exports.heldBy(workspaceId());
const exportPath = () => `/v1/submissions/export?form_id=${form.id}`;

/** A gate the wrapped list waits at until `open()`; counts the reads that reached it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { reads: 0, open };
  return Object.assign(state, {
    list: async (real: List, ...args: Parameters<List>) => {
      state.reads++;
      await opened;
      return real(...args);
    },
  });
}

/** An endless list: every read is a full page of `size`-byte rows, with more to come. */
function endless(size: number, counted: { reads: number }) {
  const answers = { ...template.answers, company: 'x'.repeat(size) };
  return async () => {
    counted.reads++;
    const data = Array.from({ length: 500 }, () => ({ ...template, id: newId('sub'), answers }));
    return { data, hasMore: true };
  };
}

/** Starts a request (supertest sends on `then`) and hands back its promise. */
const started = (path: string, key?: string) =>
  new Promise<Awaited<ReturnType<WatchedApi['call']>>>((resolve, reject) => {
    api.call('get', path, key).then(resolve, reject);
  });

/**
 * A raw TLS client that sends the export request; with `pause`, it stops reading after its first bytes. A paused
 * socket does not see the server close it until it reads what is buffered, so `closed` waits for `resume()`.
 */
function reader(api: WatchedApi, { pause }: { pause: boolean }) {
  const { port } = new URL(api.baseUrl);
  const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: api.certificate, servername: 'localhost' });
  socket.on('error', () => {});
  socket.write(`GET ${exportPath()} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.workspace.live_admin_key}\r\n\r\n`);
  let received = '';
  const firstBytes = new Promise<string>((resolve) =>
    socket.once('data', (chunk: Buffer) => {
      if (pause) socket.pause();
      resolve(chunk.toString('latin1'));
    }),
  );
  socket.on('data', (chunk: Buffer) => {
    // Only the end matters: a complete chunked response ends with the zero-length chunk.
    received = (received + chunk.toString('latin1')).slice(-16);
  });
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, firstBytes, closed };
}

describe('GET /v1/submissions/export: exports at a time', () => {
  it('when a key holds its 2 exports, then a third is 429 too_many_exports with Retry-After, and the key gets one again once they end', async () => {
    const held = gate();
    listing = held.list;
    const open = [started(exportPath()), started(exportPath())];
    await vi.waitFor(() => expect(held.reads).toBe(2));
    const refused = await api.call('get', exportPath());
    expectProblem(refused, 429, 'rate_limit_error', 'too_many_exports');
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.body.details).toEqual({ retry_after_seconds: 10 });
    expect(refused.body.message).toContain('with this key');
    held.open();
    for (const res of await Promise.all(open)) expect(res.status).toBe(200);
    expect(exportsHeld()).toBe(0);
    expect((await api.call('get', exportPath())).status).toBe(200);
  });

  it('when the workspace holds its 3 exports over two keys, then a third key is refused and another workspace is not', async () => {
    const held = gate();
    listing = held.list;
    const open = [started(exportPath()), started(exportPath()), started(exportPath(), secondKey)];
    await vi.waitFor(() => expect(held.reads).toBe(3));
    const refused = await api.call('get', exportPath(), thirdKey);
    expectProblem(refused, 429, 'rate_limit_error', 'too_many_exports');
    expect(refused.body.message).toContain('in this workspace');
    expect(refused.headers['retry-after']).toBe('10');
    const other = started('/v1/submissions/export', otherWorkspaceKey);
    await vi.waitFor(() => expect(held.reads).toBe(4));
    held.open();
    for (const res of await Promise.all([...open, other])) expect(res.status).toBe(200);
    expect(exportsHeld()).toBe(0);
  });

  it('when the first read fails, then the answer is a problem and the slot is free again', async () => {
    listing = async () => {
      throw new Error('the store failed');
    };
    const res = await api.call('get', exportPath());
    expectProblem(res, 500, 'server_error', 'internal_error');
    expect(exportsHeld()).toBe(0);
  });

  it('when a read fails after the download started, then the connection is cut and the slot is free again', async () => {
    const counted = { reads: 0 };
    const page = endless(100, counted);
    listing = async () => {
      if (counted.reads === 2) throw new Error('the store failed mid-download');
      return page();
    };
    const client = reader(api, { pause: false });
    expect(await client.firstBytes).toMatch(/^HTTP\/1\.1 200/);
    // Cut, not ended: the last bytes are not the chunked body's end.
    expect(await client.closed).not.toMatch(/\r\n0\r\n\r\n$/);
    await vi.waitFor(() => expect(exportsHeld()).toBe(0));
  });

  it('when the client goes away mid-download, then the reading stops and the slot is free well before the stall timeout', async () => {
    const counted = { reads: 0 };
    listing = endless(2_000, counted);
    const client = reader(api, { pause: true });
    await client.firstBytes;
    expect(exportsHeld()).toBe(1);
    const left = Date.now();
    client.socket.destroy();
    await vi.waitFor(() => expect(exportsHeld()).toBe(0), { interval: 5 });
    expect(Date.now() - left).toBeLessThan(STALL_MS);
    const readsWhenFreed = counted.reads;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted.reads).toBe(readsWhenFreed);
  });
});

describe('GET /v1/submissions/export: a client that stops reading', () => {
  it('when the client pauses after the first bytes, then the store is no longer read, the connection is cut after the stall timeout and the slot is free', async () => {
    const counted = { reads: 0 };
    // 500 rows of about 2.5 kB a page: the socket buffers on both sides fill within a few pages.
    listing = endless(2_000, counted);
    const client = reader(api, { pause: true });
    expect(await client.firstBytes).toMatch(/^HTTP\/1\.1 200/);
    const paused = Date.now();
    expect(exportsHeld()).toBe(1);
    await vi.waitFor(() => expect(exportsHeld()).toBe(0), { timeout: STALL_MS + 10_000, interval: 10 });
    const freed = Date.now();
    // Cut once nothing drained for the stall timeout, and not long after (a busy machine adds a little). The wait
    // that times out may have begun with a write just before the client paused, hence the lower bound's margin.
    expect(freed - paused).toBeGreaterThanOrEqual(STALL_MS / 2);
    expect(freed - paused).toBeLessThan(STALL_MS + 5_000);
    // Backpressure: an endless list read as fast as the store answers would be hundreds of pages by now.
    expect(counted.reads).toBeLessThan(40);
    // The connection was cut, not ended: what the client finally reads stops short of the chunked body's end.
    client.socket.resume();
    expect(await client.closed).not.toMatch(/\r\n0\r\n\r\n$/);
    listing = undefined;
    const again = await api.call('get', exportPath());
    expect(again.status).toBe(200);
  });

  it('when a client reads the whole download, then it is not cut, however long it takes in total', async () => {
    const counted = { reads: 0 };
    const page = endless(100, counted);
    // Four pages, the last three each read after a pause longer than the stall timeout: a download waiting on the
    // store, with everything written already taken by the client, is not stalled.
    listing = async () => {
      await new Promise((resolve) => setTimeout(resolve, counted.reads === 0 ? 0 : STALL_MS + 100));
      const read = await page();
      return counted.reads >= 4 ? { ...read, hasMore: false } : read;
    };
    const res = await api
      .call('get', exportPath())
      .buffer(true)
      .parse((stream, done) => {
        let lines = 0;
        stream.on('data', (chunk: Buffer) => {
          lines += chunk.toString('utf8').split('\n').length - 1;
        });
        stream.on('end', () => done(null, lines));
      });
    expect(res.status).toBe(200);
    expect(res.body).toBe(4 * 500);
    expect(exportsHeld()).toBe(0);
  });
});

describe('GET /v1/submissions?q=…: searches take turns per workspace', () => {
  it('when one search runs and one waits, then a third is 429 too_many_searches, a list without q and other workspaces pass, and the waiting one runs after', async () => {
    const held = gate();
    listing = (real, partition, filter, ...rest) =>
      filter.search !== undefined && partition.workspaceId === workspaceId()
        ? held.list(real, partition, filter, ...rest)
        : real(partition, filter, ...rest);
    const search = `/v1/submissions?form_id=${form.id}&q=ana`;
    const running = started(search);
    await vi.waitFor(() => expect(held.reads).toBe(1));
    const waiting = started(search);
    await vi.waitFor(() => expect(api.services.concurrency!.scans.heldBy(workspaceId())).toEqual({ running: 1, waiting: 1 }));
    const refused = await api.call('get', search);
    expectProblem(refused, 429, 'rate_limit_error', 'too_many_searches');
    expect(refused.headers['retry-after']).toBe('1');
    expect((await api.call('get', `/v1/submissions?form_id=${form.id}`)).status).toBe(200);
    expect((await api.call('get', '/v1/submissions?q=ana', otherWorkspaceKey)).status).toBe(200);
    expect(held.reads).toBe(1);
    // An export with q waits its turn too, but is never refused: it queues beyond the bound.
    const download = started(`/v1/submissions/export?form_id=${form.id}&q=ana`);
    await vi.waitFor(() => expect(api.services.concurrency!.scans.heldBy(workspaceId())).toEqual({ running: 1, waiting: 2 }));
    held.open();
    for (const res of await Promise.all([running, waiting, download])) expect(res.status).toBe(200);
    expect(held.reads).toBe(3);
    expect(api.services.concurrency!.scans.heldBy(workspaceId())).toEqual({ running: 0, waiting: 0 });
  });
});
