/**
 * The paging rules of `scanForMatches` (src/store/search-scan.ts) on a list held in memory, read forwards in
 * windows as a store would: when a page is full, whether the list goes on, and where the cap stops a scan.
 */
import { describe, expect, it } from 'vitest';
import type { Page, PageRequest } from '../src/store/page.js';
import { type SearchCandidate, scanForMatches } from '../src/store/search-scan.js';

/** A list of rows in order (`key` = position), of which those whose index `matches` says carry the text. */
function list(size: number, matches: (index: number) => boolean): SearchCandidate[] {
  return Array.from({ length: size }, (_, index) => ({
    id: `sub_${String(index).padStart(4, '0')}`,
    key: index,
    search_text: matches(index) ? `needle ${index}` : 'hay',
  }));
}

/** Reads a forward window as the stores do: after the cursor or the place given, `limit` rows, `hasMore` beyond. */
function windowsOf(rows: SearchCandidate[]) {
  const reads: PageRequest[] = [];
  const readWindow = async (request: PageRequest): Promise<Page<SearchCandidate>> => {
    reads.push(request);
    const afterId = request.after?.id ?? request.startingAfter;
    const start = afterId === undefined ? 0 : rows.findIndex((row) => row.id === afterId) + 1;
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
