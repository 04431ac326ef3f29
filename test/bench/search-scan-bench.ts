/**
 * `npm run bench:search`: how long one `q` search holds the event loop on SQLite, whose statements run
 * synchronously. Not a test (nothing here passes or fails); it prints a table.
 *
 * A workspace of BENCH_ROWS (default 200,000) submissions, of which only the oldest holds the searched text, is
 * searched newest first, the worst case: the match lies behind every other row.
 * - one statement: the search as one SQL statement with `instr` in its WHERE, as the list read it before windows;
 * - list: the submissions list's windowed scan with the default window and cap (ends in `SearchTooBroad`);
 * - export: the same scan without the cap (what the export's first page does), to the match.
 * For each: the wall time and the longest synchronous step, measured as the longest gap between two turns of a
 * `setImmediate` ticker that runs meanwhile (what another request would have waited for at worst).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newId } from '../../src/ids.js';
import { defaultSearchScan, type SearchScan } from '../../src/store/search-scan.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { insertSubmissionRow } from '../../src/store/sqlite/submissions.js';
import { at, form, submission, workspace } from '../store/conformance/fixtures.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const BATCH = 10_000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number) => Math.round(value * 10) / 10;

const dir = mkdtempSync(join(tmpdir(), 'form-funnel-search-bench-'));
const db = openDatabase(join(dir, 'bench.db'));
const store = createSqliteStore(db);
const workspaceId = await workspace(store);
const written = form('search');
await store.forms.create({ form: written, workspaceId, environment: 'live' });

log(`seeding ${ROWS.toLocaleString('en')} submissions (only the oldest holds "unicorn")…`);
const start = Date.parse(at(0));
for (let from = 0; from < ROWS; from += BATCH) {
  db.transaction(() => {
    for (let index = from; index < Math.min(from + BATCH, ROWS); index++) {
      const row = { ...submission(written.id, new Date(start + index * 1_000).toISOString()), id: newId('sub') };
      const searchText = index === 0 ? 'unicorn inc\nzoe@unicorn.example' : `lead ${index}\nlead${index}@example.com`;
      insertSubmissionRow(db, { submission: row, workspaceId, environment: 'live', searchText });
    }
  })();
}
db.pragma('optimize');

/** Runs `work` beside a setImmediate ticker; the longest gap between two ticks is the longest synchronous step. */
async function measure(work: () => Promise<unknown> | unknown): Promise<{ wallMs: number; longestStepMs: number; outcome: string }> {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const began = performance.now();
  let outcome: string;
  try {
    outcome = String(await work());
  } catch (error) {
    outcome = (error as Error).name;
  }
  const wallMs = performance.now() - began;
  running = false;
  // The last gap (from the last tick to the end of the work) counts too.
  longest = Math.max(longest, performance.now() - last);
  return { wallMs, longestStepMs: longest, outcome };
}

const partition = { workspaceId, environment: 'live' as const, attachment: { type: 'workspace' as const } };
const list = (scan: SearchScan) => async () => {
  const page = await store.submissions.list(partition, { search: 'unicorn' }, { limit: 20 }, undefined, scan);
  return `${page.data.length} match(es)`;
};
const oneStatement = () => {
  const rows = db
    .prepare(
      `SELECT s.* FROM submissions s WHERE s.workspace_id = ? AND s.environment = ? AND instr(s.search_text, ?) > 0
       ORDER BY s.created_at DESC, s.id DESC LIMIT 21`,
    )
    .all(workspaceId, 'live', 'unicorn');
  return `${rows.length} match(es)`;
};

// Once each first, so the page cache is warm for all three alike.
await measure(oneStatement);
const results = [
  ['one statement (before)', await measure(oneStatement)],
  [`list, window ${defaultSearchScan.window}, cap ${defaultSearchScan.cap}`, await measure(list(defaultSearchScan))],
  [
    `export, window ${defaultSearchScan.window}, no cap`,
    await measure(list({ window: defaultSearchScan.window, cap: Number.POSITIVE_INFINITY })),
  ],
] as const;
log('| scan | outcome | wall ms | longest synchronous step ms |');
log('|---|---|---|---|');
for (const [name, result] of results) log(`| ${name} | ${result.outcome} | ${round(result.wallMs)} | ${round(result.longestStepMs)} |`);

store.close();
rmSync(dir, { recursive: true, force: true });
