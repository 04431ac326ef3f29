/**
 * A search reads the list in windows and gives the event loop a turn between two of them, so on SQLite (whose
 * statements run synchronously) no single step reads more than one window, however rare the text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchTooBroad } from '../../src/store/errors.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { at, form, submission, workspace } from './conformance/fixtures.js';

let store: ReturnType<typeof createSqliteStore>;
let workspaceId: string;
let oldest: string;

beforeAll(async () => {
  store = createSqliteStore(':memory:');
  workspaceId = await workspace(store);
  const written = form('scan');
  await store.forms.create({ form: written, workspaceId, environment: 'live' });
  for (let second = 0; second < 30; second++) {
    const row = submission(written.id, at(second));
    if (second === 0) oldest = row.id;
    await store.submissions.insert({ submission: row, workspaceId, environment: 'live', searchText: second === 0 ? 'rare' : 'common' });
  }
});
afterAll(() => store.close());

const partition = () => ({ workspaceId, environment: 'live' as const, attachment: { type: 'workspace' as const } });

/** Runs `work` while counting the turns other callbacks (`setImmediate`, as an I/O callback would) get meanwhile. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

describe('a search over a list, window by window', () => {
  it('when the only match is the last row, then every window of 5 is read in its own turn of the event loop', async () => {
    let page: Awaited<ReturnType<typeof store.submissions.list>> | undefined;
    const turns = await turnsDuring(async () => {
      page = await store.submissions.list(partition(), { search: 'rare' }, { limit: 10 }, undefined, { window: 5, cap: 1_000 });
    });
    expect(page?.data.map((s) => s.id)).toEqual([oldest]);
    // 30 rows in windows of 5: six windows, five turns between them.
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  it('when the cap is read without a match, then SearchTooBroad says how many rows were read', async () => {
    const reading = store.submissions.list(partition(), { search: 'rare' }, { limit: 10 }, undefined, { window: 5, cap: 12 });
    await expect(reading).rejects.toBeInstanceOf(SearchTooBroad);
    await expect(reading).rejects.toMatchObject({ scanned: 12 });
  });

  it('when no scan is given, then the defaults apply and a small list is read at once', async () => {
    const page = await store.submissions.list(partition(), { search: 'common' }, { limit: 3 });
    expect(page.data).toHaveLength(3);
    expect(page.hasMore).toBe(true);
  });
});
