/**
 * A text search over a list, in bounded steps. No index answers "contains this text", so `q` is checked on the
 * rows the list's ordered scan passes; a rare text would read the whole list in one statement, which on SQLite
 * stalls every other request for as long. Instead the list's rows are read in windows (the same filters and
 * order, without the text), the text is checked on each window, and the event loop gets a turn between two
 * windows; after `cap` rows without a match the search stops.
 */
import { InvalidCursor, SearchTooBroad } from './errors.js';
import type { KeysetPosition, Page, PageRequest } from './page.js';

/** How a search reads its list: `window` rows at a time, at most `cap` rows in one call (`Infinity`: no cap). */
export interface SearchScan {
  window: number;
  cap: number;
}

/**
 * The document's figures (the `q` parameter, test/domain/spec-sync.test.ts pins them): 500 rows a window, so one
 * synchronous step reads at most that many, and other requests wait for no more than that; 100,000 rows a request,
 * so a search that finds nothing ends after 200 windows. A smaller window costs more statements, a larger one
 * makes every other request wait longer while a search runs (both figures: `npm run bench:search`).
 */
export const defaultSearchScan: Readonly<SearchScan> = { window: 500, cap: 100_000 };

/** A row of a window: its place in the order and the text the search looks in. */
export interface SearchCandidate {
  id: string;
  key: string | number;
  /** Null only where a row never got one: nothing in it is searchable. */
  search_text: string | null;
}

/**
 * The ids of the page's matches in list order, and whether the list goes on beyond them. The page fills from
 * its cursor outwards (backwards for `ending_before` or `before`). When the cap ends the scan, the matches so far
 * are the page, with `hasMore`: every row between the cursor and the last of them was read, so the next page
 * starts from it without a gap. With no match at all there is no such place to give, and `SearchTooBroad`
 * says so.
 */
export async function scanForMatches(
  page: PageRequest,
  search: string,
  scan: SearchScan,
  readWindow: (request: PageRequest) => Promise<Page<SearchCandidate>>,
  searchTextOf: (id: string) => Promise<string | undefined>,
): Promise<Page<string>> {
  // The windows are read without the search, so a cursor is checked against it here: one that does not match
  // is not in the searched list. One that names no row at all is refused by the first window's lookup.
  const cursorId = page.startingAfter ?? page.endingBefore;
  if (cursorId !== undefined && !((await searchTextOf(cursorId)) ?? search).includes(search)) {
    throw new InvalidCursor(page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
  }
  const backwards = page.endingBefore !== undefined || page.before !== undefined;
  const inListOrder = (ids: string[]) => (backwards ? ids.reverse() : ids);
  const matches: string[] = [];
  let request: PageRequest = { ...page, limit: Math.min(scan.window, scan.cap) };
  let scanned = 0;
  for (;;) {
    const window = await readWindow(request);
    // Scan order: away from the cursor.
    const rows = backwards ? window.data.reverse() : window.data;
    for (const row of rows) {
      if (!row.search_text?.includes(search)) continue;
      matches.push(row.id);
      if (matches.length > page.limit) return { data: inListOrder(matches.slice(0, page.limit)), hasMore: true };
    }
    scanned += rows.length;
    if (!window.hasMore) return { data: inListOrder(matches), hasMore: false };
    if (scanned >= scan.cap) {
      if (matches.length === 0) throw new SearchTooBroad(scanned);
      return { data: inListOrder(matches), hasMore: true };
    }
    const last = rows.at(-1)!;
    const place: KeysetPosition = { key: last.key, id: last.id };
    request = { limit: Math.min(scan.window, scan.cap - scanned), ...(backwards ? { before: place } : { after: place }) };
    await nextWindowTurn();
  }
}

/**
 * Scans waiting to read their next window, first come first served. The SQLite store reads a window
 * synchronously, so every window read in one turn of the event loop delays every other request by as much: with
 * each scan yielding on its own, four scans would read four windows between two turns. Instead one window is read
 * per turn, whatever the number of scans and workspaces: other requests wait for one window at most, and scans
 * share what is left of the process among themselves.
 */
const waitingForWindow: Array<() => void> = [];
let turnScheduled = false;

function nextWindowTurn(): Promise<void> {
  return new Promise((resolve) => {
    waitingForWindow.push(resolve);
    if (!turnScheduled) {
      turnScheduled = true;
      setImmediate(giveWindowTurn);
    }
  });
}

function giveWindowTurn(): void {
  waitingForWindow.shift()?.();
  // Scheduled from this turn's setImmediate phase, the next one runs in the next turn, after its I/O.
  if (waitingForWindow.length > 0) setImmediate(giveWindowTurn);
  else turnScheduled = false;
}

/** The rows named by `ids`, in that order; a row deleted since its window was read is left out. */
export function inOrderOf<Row extends { id: string }>(ids: readonly string[], rows: readonly Row[]): Row[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
