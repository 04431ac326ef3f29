/**
 * The paging rules of `scanForMatches` (src/store/search-scan.ts) on a list held in memory, read forwards in
 * windows as a store would: when a page is full, whether the list goes on, and where the cap stops a scan.
 */
import { describe, expect, it } from 'vitest';
import { InvalidCursor } from '../src/store/errors.js';
import type { Page, PageRequest } from '../src/store/page.js';
import { inOrderOf, type SearchCandidate, scanForMatches } from '../src/store/search-scan.js';

/** A list of rows in order (`key` = position), of which those whose index `matches` says carry the text. */
function list(size: number, matches: (index: number) => boolean): SearchCandidate[] {
  return Array.from({ length: size }, (_, index) => ({
    id: `sub_${String(index).padStart(4, '0')}`,
    key: index,
    search_text: matches(index) ? `needle ${index}` : 'hay',
  }));
}

/**
 * Reads a window as the stores do: `limit` rows after the cursor or the place given (forwards), or the `limit`
 * rows nearest before it (backwards), in list order either way, with `hasMore` for rows beyond them. A cursor
 * that names no row is refused, as a store's lookup refuses it.
 */
function windowsOf(rows: SearchCandidate[]) {
  const reads: PageRequest[] = [];
  const indexOf = (id: string, parameter: 'starting_after' | 'ending_before') => {
    const index = rows.findIndex((row) => row.id === id);
    if (index < 0) throw new InvalidCursor(parameter);
    return index;
  };
  const readWindow = async (request: PageRequest): Promise<Page<SearchCandidate>> => {
    reads.push(request);
    const beforeId = request.before?.id ?? request.endingBefore;
    if (beforeId !== undefined) {
      const end = indexOf(beforeId, 'ending_before');
      const start = Math.max(0, end - request.limit);
      return { data: rows.slice(start, end), hasMore: start > 0 };
    }
    const afterId = request.after?.id ?? request.startingAfter;
    const start = afterId === undefined ? 0 : indexOf(afterId, 'starting_after') + 1;
    return { data: rows.slice(start, start + request.limit), hasMore: start + request.limit < rows.length };
  };
  const searchTextOf = async (id: string) => rows.find((row) => row.id === id)?.search_text ?? undefined;
  return { reads, readWindow, searchTextOf };
}

const ids = (rows: SearchCandidate[], indexes: number[]) => indexes.map((index) => rows[index]!.id);

describe('scanForMatches', () => {
  it('when the last page of matches is exactly full, then it says there is no more', async () => {
    const rows = list(9, (index) => index % 3 === 0);
    const { readWindow, searchTextOf } = windowsOf(rows);
    const page = await scanForMatches({ limit: 3 }, 'needle', { window: 4, cap: 100 }, readWindow, searchTextOf);
    expect(page).toEqual({ data: ids(rows, [0, 3, 6]), hasMore: false });
  });

  it('when one match lies beyond a full page, then the page says there is more and ends at its last match', async () => {
    const rows = list(12, (index) => index % 3 === 0);
    const { readWindow, searchTextOf } = windowsOf(rows);
    const page = await scanForMatches({ limit: 3 }, 'needle', { window: 4, cap: 100 }, readWindow, searchTextOf);
    expect(page).toEqual({ data: ids(rows, [0, 3, 6]), hasMore: true });
  });

  it('when the page after a cursor holds the last matches exactly, then it too says there is no more', async () => {
    const rows = list(12, (index) => index % 3 === 0);
    const { readWindow, searchTextOf } = windowsOf(rows);
    const page = await scanForMatches(
      { limit: 3, startingAfter: rows[0]!.id },
      'needle',
      { window: 5, cap: 100 },
      readWindow,
      searchTextOf,
    );
    expect(page).toEqual({ data: ids(rows, [3, 6, 9]), hasMore: false });
  });

  it('when the cap ends the scan after some matches, then they are the page, with more to come, and no row past the cap was read', async () => {
    const rows = list(40, (index) => index === 2 || index === 30);
    const { reads, readWindow, searchTextOf } = windowsOf(rows);
    const page = await scanForMatches({ limit: 5 }, 'needle', { window: 4, cap: 10 }, readWindow, searchTextOf);
    expect(page).toEqual({ data: ids(rows, [2]), hasMore: true });
    expect(reads.map((read) => read.limit)).toEqual([4, 4, 2]);
  });

  it('when three scans run at once, then one window at most is read in each turn of the event loop', async () => {
    // A ticker counts the turns; each read notes the turn it ran in.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turnsRead: number[][] = [];
    const scans = [0, 1, 2].map((scan) => {
      const rows = list(40, (index) => index === 39);
      const { readWindow, searchTextOf } = windowsOf(rows);
      turnsRead[scan] = [];
      const noted = (request: PageRequest) => {
        turnsRead[scan]!.push(turn);
        return readWindow(request);
      };
      return scanForMatches({ limit: 5 }, 'needle', { window: 5, cap: 100 }, noted, searchTextOf);
    });
    await Promise.all(scans);
    ticking = false;
    // Each scan read 8 windows; its first is read when it starts, every later one in a turn no other read shares.
    expect(turnsRead.map((turns) => turns.length)).toEqual([8, 8, 8]);
    const later = turnsRead.flatMap((turns) => turns.slice(1));
    expect(new Set(later).size).toBe(later.length);
  });
});

describe('scanForMatches backwards and with cursors', () => {
  const scan = { window: 4, cap: 100 };

  it('when a page ends before a cursor, then it holds the matches nearest the cursor, in list order, with more before them', async () => {
    const rows = list(12, (index) => index % 3 === 0);
    const { reads, readWindow, searchTextOf } = windowsOf(rows);
    const page = await scanForMatches({ limit: 2, endingBefore: rows[9]!.id }, 'needle', scan, readWindow, searchTextOf);
    expect(page).toEqual({ data: ids(rows, [3, 6]), hasMore: true });
    // Later windows go on backwards from the first row each window read.
    expect(reads.slice(1).map((read) => read.before?.id)).toEqual(ids(rows, [5, 1]));
  });

  it('when a page goes on backwards from a place, then it reads towards the start of the list', async () => {
    const rows = list(12, (index) => index % 3 === 0);
    const { readWindow, searchTextOf } = windowsOf(rows);
    const before = { key: 9, id: rows[9]!.id };
    const page = await scanForMatches({ limit: 5, before }, 'needle', scan, readWindow, searchTextOf);
    expect(page).toEqual({ data: ids(rows, [0, 3, 6]), hasMore: false });
  });

  it('when a cursor names a row without the text, then it is refused as not in the searched list, naming its parameter', async () => {
    const rows = list(12, (index) => index % 3 === 0);
    const { readWindow, searchTextOf } = windowsOf(rows);
    await expect(scanForMatches({ limit: 2, startingAfter: rows[1]!.id }, 'needle', scan, readWindow, searchTextOf)).rejects.toMatchObject({
      name: 'InvalidCursor',
      parameter: 'starting_after',
    });
    await expect(scanForMatches({ limit: 2, endingBefore: rows[1]!.id }, 'needle', scan, readWindow, searchTextOf)).rejects.toMatchObject({
      name: 'InvalidCursor',
      parameter: 'ending_before',
    });
  });

  it('when a cursor names no row at all, then the store refuses it as it does for any list', async () => {
    const rows = list(12, (index) => index % 3 === 0);
    const { readWindow, searchTextOf } = windowsOf(rows);
    await expect(scanForMatches({ limit: 2, startingAfter: 'sub_gone' }, 'needle', scan, readWindow, searchTextOf)).rejects.toMatchObject({
      name: 'InvalidCursor',
      parameter: 'starting_after',
    });
  });

  it('when rows never got a search text, then they are passed over, not matched and not failed on', async () => {
    const rows = list(6, (index) => index % 2 === 0).map((row, index) => (index === 3 ? { ...row, search_text: null } : row));
    const { readWindow, searchTextOf } = windowsOf(rows);
    const page = await scanForMatches({ limit: 5 }, 'needle', scan, readWindow, searchTextOf);
    expect(page).toEqual({ data: ids(rows, [0, 2, 4]), hasMore: false });
  });

  it('when the scans are over, then no turn stays scheduled, so the event loop can go idle', async () => {
    const rows = list(20, (index) => index === 19);
    const { readWindow, searchTextOf } = windowsOf(rows);
    await Promise.all([0, 1].map(() => scanForMatches({ limit: 5 }, 'needle', scan, readWindow, searchTextOf)));
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(process.getActiveResourcesInfo().filter((resource) => resource === 'Immediate')).toEqual([]);
  });
});

describe('inOrderOf', () => {
  it('when rows come back in another order and one was deleted meanwhile, then they are put in the order of the ids without it', () => {
    const rows = [{ id: 'sub_b' }, { id: 'sub_a' }];
    expect(inOrderOf(['sub_a', 'sub_gone', 'sub_b'], rows)).toEqual([{ id: 'sub_a' }, { id: 'sub_b' }]);
  });
});
