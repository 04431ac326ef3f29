/**
 * `npm run bench`: the submissions benchmark of issue 4. Not a test (nothing here passes or fails); it prints a
 * table and writes dist/bench.json.
 *
 * 1. Seeds 10,000 submissions of one form straight through the SQLite store (batched transactions), measures
 *    GET /v1/analytics, seeds 990,000 more over the same 30 days and measures again: the aggregates have the
 *    same number of rows both times, so the ratio shows that analytics cost does not follow the row count.
 * 2. GET /v1/submissions?limit=100: the first page against the page after the 900,000th submission (keyset),
 *    for the workspace list and the form-filtered list, sorted by score (`sort=-score`), filtered by one grade
 *    (`grade=A`, cursor 90 % deep into that grade's rows) and both.
 * 2b. GET /v1/submissions/export of every row, as NDJSON and as CSV: rows per second and the process's resident
 *    memory sampled while it streams (peak against the level before), which stays flat whatever the row count.
 * 3. POST /v1/submissions through the whole stack (TLS, auth, rate limits set high, validation, logic,
 *    scoring, storage with aggregates, response validation) with autocannon, next to a plain Express handler
 *    that inserts the same row, measured in the same run on the same database.
 * 4. Rescoring after a scoring change: submissions per second through the domain service (one transaction
 *    each), and requests per second of POST /v1/submissions/{id}/rescore.
 *
 * BENCH_ROWS (default 1,000,000) and BENCH_SECONDS (autocannon duration, default 10) make quicker runs possible.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import selfsigned from 'selfsigned';
import type { Schema } from '../../src/contract.js';
import { authenticate } from '../../src/domain/keys/authenticate.js';
import { rescoreSubmission } from '../../src/domain/submissions/service.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { messageClassesOf } from '../../src/http/message-classes.js';
import { newId } from '../../src/ids.js';
import { completeContext } from '../../src/store/rows/submissions.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { insertSubmissionRow } from '../../src/store/sqlite/submissions.js';
import { anaAnswers, anaHidden, demoForm } from '../http/submissions-support.js';
import { benchApp } from './bench-app.js';
import { scoredTemplates } from './submission-templates.js';

const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const FIRST_ROWS = Math.min(10_000, TOTAL_ROWS);
const AUTOCANNON_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCH = 10_000;
const WINDOW_MS = 30 * 86_400_000;
const LATENCY_SAMPLES = 300;
const RESCORE_COUNT = Math.min(20_000, TOTAL_ROWS);
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);

type Submission = Schema<'Submission'>;

// ---- setup: a temp-file database, the real app over TLS, a workspace and the demo form ----
const dir = mkdtempSync(join(tmpdir(), 'form-funnel-bench-'));
const db = openDatabase(join(dir, 'bench.db'));
db.pragma('cache_size = -262144'); // 256 MiB page cache: a million rows and their indexes mostly in memory
const store = createSqliteStore(db);
const built = await benchApp({ store, validateResponses: true });
const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 });
const tls = { key: pems.private, cert: pems.cert };
const listen = async (handler: express.Express) => {
  const server = https.createServer({ ...tls, ...messageClassesOf(handler) }, handler);
  // Seeding blocks the event loop for minutes: an idle keep-alive connection must outlive it (0: no timeout), or
  // the client's next request goes out on a socket the server has just closed (ECONNRESET).
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
};
const api = await listen(built.app);
const workspace = await bootstrapWorkspace(built.services, { name: 'Bench', plan: 'business' });
const adminKey = workspace.live_admin_key;
const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 1 });

function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      `${api.url}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${adminKey}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const { slug: _slug, ...formBody } = demoForm();
const created = await call('post', '/v1/forms', formBody);
if (created.status !== 201) throw new Error(`creating the form failed: ${JSON.stringify(created.body)}`);
const form = created.body as Schema<'Form'>;

// ---- seeding ----
const templates = scoredTemplates(form);

/** A few campaign sources, so the analytics breakdown has groups to rank. */
const UTM_SOURCES = ['linkedin', 'google', 'newsletter', 'partner', 'twitter'];

const windowEnd = Date.now() - 60_000;
const windowStart = windowEnd - WINDOW_MS;
let seeded = 0;
let seedingMs = 0;

/** Inserts `count` rows spread evenly over the 30-day window (offset so two phases interleave). */
function seed(count: number, offsetMs: number): void {
  const started = performance.now();
  const step = WINDOW_MS / count;
  for (let first = 0; first < count; first += BATCH) {
    db.transaction(() => {
      for (let index = first; index < Math.min(first + BATCH, count); index++) {
        const template = templates[(seeded + index) % templates.length]!;
        const at = new Date(Math.floor(windowStart + offsetMs + index * step)).toISOString();
        const submission: Submission = {
          id: newId('sub'),
          object: 'submission',
          form_id: form.id,
          form_version: form.version,
          status: template.status,
          test: false,
          answers: template.answers,
          hidden: template.hidden,
          visited_steps: template.visited_steps,
          score: template.score,
          grade: template.grade,
          score_breakdown: template.score_breakdown,
          context: completeContext({ utm: { source: UTM_SOURCES[index % UTM_SOURCES.length]! } }),
          metadata: {},
          completed_at: template.status === 'completed' ? at : null,
          scored_at: at,
          created_at: at,
          updated_at: at,
        };
        insertSubmissionRow(db, { submission, workspaceId: workspace.workspace_id, environment: 'live' });
      }
    })();
    if ((first / BATCH) % 10 === 9) log(`  seeded ${(seeded + first + BATCH).toLocaleString('en')} rows`);
  }
  seeded += count;
  seedingMs += performance.now() - started;
}

// ---- latency sampling: sequential requests over one keep-alive TLS connection, alternating the variants ----
interface Latency {
  median_ms: number;
  p95_ms: number;
  mean_ms: number;
}
const summarise = (samples: number[]): Latency => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    median_ms: round(at(0.5), 3),
    p95_ms: round(at(0.95), 3),
    mean_ms: round(samples.reduce((s, v) => s + v, 0) / samples.length, 3),
  };
};
const round = (value: number, decimals = 2) => Math.round(value * 10 ** decimals) / 10 ** decimals;

async function compareLatency(paths: Record<string, string>): Promise<Record<string, Latency>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
  for (let round = -30; round < LATENCY_SAMPLES; round++) {
    for (const [name, path] of Object.entries(paths)) {
      const started = performance.now();
      const res = await call('get', path);
      const elapsed = performance.now() - started;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      if (round >= 0) samples[name]!.push(elapsed);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summarise(values)]));
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const analyticsPath = `/v1/analytics?form_id=${form.id}&from=${day(windowStart)}&to=${day(windowEnd)}`;
const measureAnalytics = async () => {
  const check = await call('get', analyticsPath);
  return {
    latency: (await compareLatency({ analytics: analyticsPath })).analytics!,
    started: (check.body as Schema<'Analytics'>).submissions.started,
  };
};

// ---- autocannon in a child process, so the load generator does not share the server's event loop ----
const run = promisify(execFile);
async function autocannon(url: string, path: string, body: string | undefined, seconds: number, method = 'POST') {
  const args = ['-c', '16', '-d', String(seconds), '-j', '-m', method, '-H', `authorization=Bearer ${adminKey}`];
  if (body !== undefined) args.push('-H', 'content-type=application/json', '-b', body);
  const { stdout } = await run(join(root, 'node_modules/.bin/autocannon'), [...args, `${url}${path}`], {
    env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    '2xx': number;
    non2xx: number;
    errors: number;
  };
  return {
    requests_per_second: round(result.requests.average, 0),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors,
  };
}

/** The baseline: Express, JSON parsing and one INSERT of the same row into the same table, nothing else. */
function plainExpressApp() {
  const insert =
    db.prepare(`INSERT INTO submissions (id, workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps,
    score, grade, score_breakdown, scored_at, created_at, updated_at) VALUES (?, ?, 'live', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const template = templates[0]!;
  const app = express();
  app.use(express.json());
  app.post('/v1/submissions', (req, res) => {
    const at = new Date().toISOString();
    const id = newId('sub');
    insert.run(
      id,
      workspace.workspace_id,
      req.body.form_id,
      form.version,
      template.status,
      JSON.stringify(req.body.answers),
      JSON.stringify(req.body.hidden ?? {}),
      JSON.stringify(template.visited_steps),
      template.score,
      template.grade,
      JSON.stringify(template.score_breakdown),
      at,
      at,
      at,
    );
    res.status(201).json({ id, object: 'submission' });
  });
  return app;
}

// ---- the run ----
const results: Record<string, unknown> = {
  rows: TOTAL_ROWS,
  node: process.version,
  cpus: cpus().length,
  started_at: new Date().toISOString(),
  // Other work on the machine skews every figure; the load average says how quiet it was.
  load_average_at_start: loadavg().map((load) => round(load)),
};
log(`Database: ${join(dir, 'bench.db')}`);
log(`Seeding ${FIRST_ROWS.toLocaleString('en')} submissions...`);
seed(FIRST_ROWS, 0);
const analyticsSmall = await measureAnalytics();
log(`Seeding ${(TOTAL_ROWS - FIRST_ROWS).toLocaleString('en')} more submissions over the same 30 days...`);
seed(TOTAL_ROWS - FIRST_ROWS, Math.floor(WINDOW_MS / TOTAL_ROWS / 2));
const seedingRate = round(seeded / (seedingMs / 1000), 0);
log(`Seeded ${seeded.toLocaleString('en')} rows in ${round(seedingMs / 1000, 1)} s (${seedingRate.toLocaleString('en')} rows/s)`);
const analyticsLarge = await measureAnalytics();

const deepIndex = Math.floor(TOTAL_ROWS * 0.9) - 1;
const deep = db
  .prepare(`SELECT id FROM submissions WHERE workspace_id = ? AND environment = 'live' ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`)
  .get(workspace.workspace_id, deepIndex) as { id: string };
log(`Measuring list pages (cursor at row ${(deepIndex + 1).toLocaleString('en')})...`);
const lists = await compareLatency({
  first: '/v1/submissions?limit=100',
  deep: `/v1/submissions?limit=100&starting_after=${deep.id}`,
  formFirst: `/v1/submissions?limit=100&form_id=${form.id}`,
  formDeep: `/v1/submissions?limit=100&form_id=${form.id}&starting_after=${deep.id}`,
});

/** The id at `depth` (0..1) of a list in the order `orderBy`, among the rows `where` selects. */
const cursorAt = (where: string, orderBy: string, depth: number, ...params: unknown[]) => {
  const { count } = db.prepare(`SELECT COUNT(*) AS count FROM submissions WHERE ${where}`).get(...params) as { count: number };
  const offset = Math.max(0, Math.floor(count * depth) - 1);
  const row = db.prepare(`SELECT id FROM submissions WHERE ${where} ORDER BY ${orderBy} LIMIT 1 OFFSET ?`).get(...params, offset) as {
    id: string;
  };
  return { id: row.id, position: offset + 1, count };
};
const inWorkspace = `workspace_id = ? AND environment = 'live'`;
const scoreDeep = cursorAt(inWorkspace, 'score DESC, id DESC', 0.9, workspace.workspace_id);
const gradeDeep = cursorAt(`${inWorkspace} AND grade = 'A'`, 'created_at DESC, id DESC', 0.9, workspace.workspace_id);
const gradeScoreDeep = cursorAt(`${inWorkspace} AND grade = 'A'`, 'score DESC, id DESC', 0.9, workspace.workspace_id);
log(
  `Measuring sorted and filtered list pages (score cursor at row ${scoreDeep.position.toLocaleString('en')}, grade A cursor at row ` +
    `${gradeDeep.position.toLocaleString('en')} of ${gradeDeep.count.toLocaleString('en')})...`,
);
const findLists = await compareLatency({
  scoreFirst: '/v1/submissions?limit=100&sort=-score',
  scoreDeep: `/v1/submissions?limit=100&sort=-score&starting_after=${scoreDeep.id}`,
  gradeFirst: '/v1/submissions?limit=100&grade=A',
  gradeDeep: `/v1/submissions?limit=100&grade=A&starting_after=${gradeDeep.id}`,
  gradeScoreFirst: '/v1/submissions?limit=100&grade=A&sort=-score',
  gradeScoreDeep: `/v1/submissions?limit=100&grade=A&sort=-score&starting_after=${gradeScoreDeep.id}`,
});

/** Streams a whole export without keeping it, counting its records, while sampling the resident memory. */
function measureExport(path: string) {
  return new Promise<{
    records: number;
    megabytes: number;
    seconds: number;
    rows_per_second: number;
    rss_before_mb: number;
    rss_peak_mb: number;
  }>((resolve, reject) => {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    let lineEnds = 0;
    let bytes = 0;
    const req = https.request(`${api.url}${path}`, { agent, headers: { authorization: `Bearer ${adminKey}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lineEnds++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        const seconds = (performance.now() - started) / 1000;
        // A CSV's header is a line too; its records contain no line feed here (no answer holds one).
        const records = path.includes('format=csv') ? lineEnds - 1 : lineEnds;
        resolve({
          records,
          megabytes: round(bytes / 1e6, 1),
          seconds: round(seconds, 1),
          rows_per_second: round(records / seconds, 0),
          rss_before_mb: round(rssBefore / 2 ** 20, 0),
          rss_peak_mb: round(rssPeak / 2 ** 20, 0),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
log(`Exporting ${TOTAL_ROWS.toLocaleString('en')} submissions as NDJSON, then as CSV...`);
const exportNdjson = await measureExport(`/v1/submissions/export?format=ndjson`);
const exportCsv = await measureExport(`/v1/submissions/export?format=csv&form_id=${form.id}`);

log(`Measuring POST /v1/submissions with autocannon (${AUTOCANNON_SECONDS} s each, 16 connections)...`);
const submissionBody = JSON.stringify({ form_id: form.id, answers: anaAnswers(), hidden: anaHidden() });
const plain = await listen(plainExpressApp());
await autocannon(api.url, '/v1/submissions', submissionBody, 2);
const fullStack = await autocannon(api.url, '/v1/submissions', submissionBody, AUTOCANNON_SECONDS);
await autocannon(plain.url, '/v1/submissions', submissionBody, 2);
const plainExpress = await autocannon(plain.url, '/v1/submissions', submissionBody, AUTOCANNON_SECONDS);
plain.server.close();

log(`Measuring rescoring of ${RESCORE_COUNT.toLocaleString('en')} submissions after a scoring change...`);
const scoring = {
  ...form.scoring,
  rules: [...form.scoring.rules, { id: 'enterprise', when: { field: 'company_size', op: 'equals', value: '201_plus' }, points: 15 }],
};
const patched = await call('patch', `/v1/forms/${form.id}`, { scoring });
if (patched.status !== 200) throw new Error(`changing the scoring failed: ${JSON.stringify(patched.body)}`);
const principal = await authenticate(built.services, `Bearer ${adminKey}`, '127.0.0.1', { record: () => {} });
const toRescore = (
  db.prepare(`SELECT id FROM submissions WHERE form_id = ? ORDER BY created_at LIMIT ?`).all(form.id, RESCORE_COUNT) as Array<{
    id: string;
  }>
).map((row) => row.id);
const rescoreStarted = performance.now();
for (const id of toRescore) await rescoreSubmission(built.services, principal, id);
const rescoreSeconds = (performance.now() - rescoreStarted) / 1000;
const rescoreHttp = await autocannon(
  api.url,
  `/v1/submissions/${toRescore[0]}/rescore`,
  undefined,
  Math.max(3, Math.round(AUTOCANNON_SECONDS / 2)),
);
log('Measuring GET /v1/forms/{id} with autocannon...');
const getForm = await autocannon(api.url, `/v1/forms/${form.id}`, undefined, Math.max(3, Math.round(AUTOCANNON_SECONDS / 2)), 'GET');

const ratio = (a: number, b: number) => round(a / b, 2);
const figures = {
  seeding: { rows: seeded, seconds: round(seedingMs / 1000, 1), rows_per_second: seedingRate },
  list_page: {
    first: lists.first,
    deep_900k: lists.deep,
    ratio_median: ratio(lists.deep!.median_ms, lists.first!.median_ms),
    form_first: lists.formFirst,
    form_deep_900k: lists.formDeep,
    form_ratio_median: ratio(lists.formDeep!.median_ms, lists.formFirst!.median_ms),
    target_ratio: 1.2,
  },
  find_page: {
    score_first: findLists.scoreFirst,
    score_deep: findLists.scoreDeep,
    score_cursor_row: scoreDeep.position,
    score_ratio_median: ratio(findLists.scoreDeep!.median_ms, findLists.scoreFirst!.median_ms),
    grade_first: findLists.gradeFirst,
    grade_deep: findLists.gradeDeep,
    grade_rows: gradeDeep.count,
    grade_cursor_row: gradeDeep.position,
    grade_ratio_median: ratio(findLists.gradeDeep!.median_ms, findLists.gradeFirst!.median_ms),
    grade_score_first: findLists.gradeScoreFirst,
    grade_score_deep: findLists.gradeScoreDeep,
    grade_score_ratio_median: ratio(findLists.gradeScoreDeep!.median_ms, findLists.gradeScoreFirst!.median_ms),
    target_ratio: 1.2,
  },
  export: { ndjson: exportNdjson, csv: exportCsv },
  analytics: {
    small: { submissions: analyticsSmall.started, ...analyticsSmall.latency },
    large: { submissions: analyticsLarge.started, ...analyticsLarge.latency },
    ratio_median: ratio(analyticsLarge.latency.median_ms, analyticsSmall.latency.median_ms),
    target_ratio: 2,
  },
  create_submission: {
    full_stack: fullStack,
    plain_express: plainExpress,
    full_to_plain_ratio: ratio(fullStack.requests_per_second, plainExpress.requests_per_second),
    target_per_second: 1000,
  },
  get_form: getForm,
  rescore: {
    submissions: toRescore.length,
    seconds: round(rescoreSeconds, 2),
    submissions_per_second: round(toRescore.length / rescoreSeconds, 0),
    http_single_submission: rescoreHttp,
  },
};
Object.assign(results, figures, { finished_at: new Date().toISOString(), load_average_at_end: loadavg().map((load) => round(load)) });

const rows: Array<[string, string, string]> = [
  ['seeding', `${seedingRate.toLocaleString('en')} rows/s`, `${seeded.toLocaleString('en')} rows in ${figures.seeding.seconds} s`],
  ['list, first page (limit 100)', `${lists.first!.median_ms} ms`, `p95 ${lists.first!.p95_ms} ms`],
  ['list, after row 900,000', `${lists.deep!.median_ms} ms`, `ratio ${figures.list_page.ratio_median}x (target <= 1.2x)`],
  ['list by form, first page', `${lists.formFirst!.median_ms} ms`, `p95 ${lists.formFirst!.p95_ms} ms`],
  ['list by form, after row 900,000', `${lists.formDeep!.median_ms} ms`, `ratio ${figures.list_page.form_ratio_median}x (target <= 1.2x)`],
  ['list by -score, first page', `${findLists.scoreFirst!.median_ms} ms`, `p95 ${findLists.scoreFirst!.p95_ms} ms`],
  [
    `list by -score, after row ${scoreDeep.position.toLocaleString('en')}`,
    `${findLists.scoreDeep!.median_ms} ms`,
    `ratio ${figures.find_page.score_ratio_median}x (target <= 1.2x)`,
  ],
  [
    `list grade=A (${gradeDeep.count.toLocaleString('en')} rows), first page`,
    `${findLists.gradeFirst!.median_ms} ms`,
    `p95 ${findLists.gradeFirst!.p95_ms} ms`,
  ],
  [
    `list grade=A, after its row ${gradeDeep.position.toLocaleString('en')}`,
    `${findLists.gradeDeep!.median_ms} ms`,
    `ratio ${figures.find_page.grade_ratio_median}x (target <= 1.2x)`,
  ],
  ['list grade=A by -score, first page', `${findLists.gradeScoreFirst!.median_ms} ms`, `p95 ${findLists.gradeScoreFirst!.p95_ms} ms`],
  [
    'list grade=A by -score, 90 % deep',
    `${findLists.gradeScoreDeep!.median_ms} ms`,
    `ratio ${figures.find_page.grade_score_ratio_median}x (target <= 1.2x)`,
  ],
  ...(['ndjson', 'csv'] as const).map((format): [string, string, string] => {
    const figure = figures.export[format];
    return [
      `export, ${format.toUpperCase()}`,
      `${figure.rows_per_second.toLocaleString('en')} rows/s`,
      `${figure.records.toLocaleString('en')} rows, ${figure.megabytes} MB in ${figure.seconds} s; RSS ${figure.rss_before_mb} MB ` +
        `before, peak ${figure.rss_peak_mb} MB`,
    ];
  }),
  [
    `analytics, ${analyticsSmall.started.toLocaleString('en')} submissions`,
    `${analyticsSmall.latency.median_ms} ms`,
    `p95 ${analyticsSmall.latency.p95_ms} ms`,
  ],
  [
    `analytics, ${analyticsLarge.started.toLocaleString('en')} submissions`,
    `${analyticsLarge.latency.median_ms} ms`,
    `ratio ${figures.analytics.ratio_median}x (target <= 2x)`,
  ],
  [
    'POST /v1/submissions, full stack',
    `${fullStack.requests_per_second.toLocaleString('en')} req/s`,
    `p50 ${fullStack.p50_ms} ms, p99 ${fullStack.p99_ms} ms, ${fullStack.failed} failed (target >= 1,000/s)`,
  ],
  [
    'POST, plain Express + INSERT',
    `${plainExpress.requests_per_second.toLocaleString('en')} req/s`,
    `full stack = ${figures.create_submission.full_to_plain_ratio}x plain`,
  ],
  [
    'rescore (domain + store)',
    `${figures.rescore.submissions_per_second.toLocaleString('en')} subs/s`,
    `${toRescore.length.toLocaleString('en')} distinct submissions`,
  ],
  [
    'rescore over HTTP (one submission)',
    `${rescoreHttp.requests_per_second.toLocaleString('en')} req/s`,
    `p50 ${rescoreHttp.p50_ms} ms, ${rescoreHttp.failed} failed`,
  ],
  [
    'GET /v1/forms/{id}, full stack',
    `${getForm.requests_per_second.toLocaleString('en')} req/s`,
    `p50 ${getForm.p50_ms} ms, ${getForm.failed} failed`,
  ],
];
const width = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length), 6));
log('');
log(rows.map((row) => row.map((cell, column) => cell.padEnd(width[column]!)).join('  ')).join('\n'));
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/bench.json'), `${JSON.stringify(results, null, 2)}\n`);
log(
  `\nLoad average (1, 5, 15 min) at start ${(results.load_average_at_start as number[]).join(', ')}, at end ${loadavg()
    .map((load) => round(load))
    .join(', ')} on ${cpus().length} cores`,
);
log('Wrote dist/bench.json');

agent.destroy();
api.server.close();
await built.flushLastUsed();
await store.close();
rmSync(dir, { recursive: true, force: true });
