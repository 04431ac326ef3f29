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
 *
 * Then the fairness figure, through the app over TLS: another workspace's `GET /v1/forms/{id}`, FAIRNESS_REQUESTS
 * (default 300) of them one after another, alone and then while the searching workspace keeps SEARCHERS (default
 * 4) list searches for the rare text running (each reads the cap's 100,000 rows and ends in 422
 * `search_too_broad`). The other workspace's p50 and p99 during the searches, divided by those alone, once with
 * the default turns per workspace (`defaultConcurrency`) and once with no bound. The other workspace's reader is a
 * child process (sequential-client.ts), so only the server's event loop is shared. Latency figures on a shared
 * machine are noisy: compare the two rows of one run, not runs on different days.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import selfsigned from 'selfsigned';
import { type ConcurrencySettings, defaultConcurrency } from '../../src/domain/concurrency-slots.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { messageClassesOf } from '../../src/http/message-classes.js';
import { newId } from '../../src/ids.js';
import { defaultSearchScan, type SearchScan } from '../../src/store/search-scan.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { insertSubmissionRow } from '../../src/store/sqlite/submissions.js';
import { at, form, submission } from '../store/conformance/fixtures.js';
import { benchApp } from './bench-app.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const FAIRNESS_REQUESTS = Number(process.env.FAIRNESS_REQUESTS ?? 300);
const SEARCHERS = Number(process.env.SEARCHERS ?? 4);
const BATCH = 10_000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number) => Math.round(value * 10) / 10;
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), 'form-funnel-search-bench-'));
const db = openDatabase(join(dir, 'bench.db'));
const store = createSqliteStore(db);
// The searching workspace and another one, bootstrapped as the server does, so both have keys for the app below.
const bootstrap = await benchApp({ store });
const searching = await bootstrapWorkspace(bootstrap.services, { name: 'Searching', plan: 'business' });
const other = await bootstrapWorkspace(bootstrap.services, { name: 'Other', plan: 'business' });
const workspaceId = searching.workspace_id;
const searchingKey = searching.live_admin_key;
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

log('');
log(await fairness());

store.close();
rmSync(dir, { recursive: true, force: true });

/** The other workspace's latency alone and during the searches, with the default bound and without one. */
async function fairness(): Promise<string> {
  const otherForm = form('other', at(1));
  await store.forms.create({ form: otherForm, workspaceId: other.workspace_id, environment: 'live' });
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' });
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const unbounded: ConcurrencySettings = { ...defaultConcurrency, scansPerWorkspace: 1_000, scanQueuePerWorkspace: 1_000 };
  const lines = [
    `other workspace's GET /v1/forms/{id}, ${FAIRNESS_REQUESTS} requests in a row, alone and during ${SEARCHERS} searches of ` +
      `${defaultSearchScan.cap.toLocaleString('en')} rows each (ratio = during / alone)`,
    '',
    '| searches per workspace | p50 alone ms | p99 alone ms | p50 during ms | p99 during ms | p50 ratio | p99 ratio | searches answered | refused 429 |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, concurrency] of [
    [`${defaultConcurrency.scansPerWorkspace} run, ${defaultConcurrency.scanQueuePerWorkspace} wait (default)`, defaultConcurrency],
    ['no bound', unbounded],
  ] as const) {
    const { app } = await benchApp({ store, concurrency });
    const server = https.createServer({ key: pems.private, cert: pems.cert, ...messageClassesOf(app) }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new https.Agent({ keepAlive: true, ca: pems.cert, servername: 'localhost', maxSockets: SEARCHERS + 1 });
    const get = (path: string, key: string) =>
      new Promise<number>((resolve, reject) => {
        const req = https.get({ host: '127.0.0.1', port, path, agent, headers: { Authorization: `Bearer ${key}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      });
    const readOther = async (): Promise<number[]> => {
      const { stdout } = await run(process.execPath, [
        '--import',
        'tsx',
        fileURLToPath(new URL('./sequential-client.ts', import.meta.url)),
        `https://127.0.0.1:${port}/v1/forms/${otherForm.id}`,
        `Bearer ${other.live_admin_key}`,
        String(FAIRNESS_REQUESTS),
        caFile,
      ]);
      return JSON.parse(stdout);
    };
    await readOther();
    const alone = await readOther();
    let searchesGoOn = true;
    const statuses: number[] = [];
    const searchers = Array.from({ length: SEARCHERS }, async () => {
      while (searchesGoOn) statuses.push(await get('/v1/submissions?q=unicorn', searchingKey));
    });
    // Let every searcher's first request reach the server before the measured reads begin.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await readOther();
    searchesGoOn = false;
    await Promise.all(searchers);
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const [a50, a99, d50, d99] = [percentile(alone, 50), percentile(alone, 99), percentile(during, 50), percentile(during, 99)];
    const answered = statuses.filter((status) => status === 422 || status === 200).length;
    const refused = statuses.filter((status) => status === 429).length;
    lines.push(
      `| ${name} | ${round(a50)} | ${round(a99)} | ${round(d50)} | ${round(d99)} | ${round(d50 / a50)} | ${round(d99 / a99)} | ${answered} | ${refused} |`,
    );
  }
  return lines.join('\n');
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
