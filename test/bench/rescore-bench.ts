/**
 * `npm run bench:rescore` (part of `npm run bench`): bulk rescoring at one million submissions on SQLite. Not a
 * test (nothing here passes or fails); it prints a table and writes dist/rescore-bench.json.
 *
 * It decides between a synchronous `POST /v1/forms/{id}/rescore` with a documented ceiling and a background job:
 *
 * 1. Batch-size sweep on a form of SWEEP_ROWS submissions: for each batch size, rows per second and the longest
 *    event-loop block (perf_hooks monitorEventLoopDelay, 1 ms resolution) while the job runs.
 * 2. The whole job at BENCH_ROWS (default 1,000,000) submissions with the worker's default batch size, while a
 *    client sends GET /v1/submissions?limit=1 every 20 ms through the real app over TLS: rows per second, the
 *    job's duration (what a synchronous request would have to wait), the longest event-loop block, and the
 *    latency of the concurrent requests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import selfsigned from 'selfsigned';
import type { Schema } from '../../src/contract.js';
import { defaultRescoreBatchSize, runRescoreJobs } from '../../src/domain/rescore-jobs/worker.js';
import { scoreSubmission } from '../../src/domain/scoring/score-submission.js';
import { validateAnswers } from '../../src/domain/submissions/validate-answers.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { messageClassesOf } from '../../src/http/message-classes.js';
import { newId } from '../../src/ids.js';
import { completeContext } from '../../src/store/rows/submissions.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { insertSubmissionRow } from '../../src/store/sqlite/submissions.js';
import { anaAnswers, anaHidden, budgetAnswers, demoForm, noBudgetAnswers } from '../http/submissions-support.js';
import { benchApp } from './bench-app.js';

const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SWEEP_ROWS = Math.min(Number(process.env.BENCH_SWEEP_ROWS ?? 50_000), TOTAL_ROWS);
const SWEEP_BATCHES = [100, 250, 500, 1000, 2000];
const SEED_BATCH = 10_000;
const PROBE_INTERVAL_MS = 20;
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number, decimals = 1) => Math.round(value * 10 ** decimals) / 10 ** decimals;

type Submission = Schema<'Submission'>;

// ---- setup: a temp-file database, the real app over TLS, a workspace ----
const dir = mkdtempSync(join(tmpdir(), 'form-funnel-rescore-bench-'));
const db = openDatabase(join(dir, 'bench.db'));
db.pragma('cache_size = -262144');
const store = createSqliteStore(db);
const built = await benchApp({ store });
const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 });
const server = https.createServer({ key: pems.private, cert: pems.cert, ...messageClassesOf(built.app) }, built.app);
// Seeding keeps the client's connection idle for minutes; it must still be open for the probe.
server.keepAliveTimeout = 3_600_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
const workspace = await bootstrapWorkspace(built.services, { name: 'Bench', plan: 'business' });
const agent = new https.Agent({ keepAlive: true, ca: pems.cert, maxSockets: 1 });

function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      `${baseUrl}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${workspace.live_admin_key}`,
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

async function expectStatus(status: number, response: Promise<{ status: number; body: Record<string, unknown> }>) {
  const res = await response;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A demo form with `count` submissions scored by its first version, then a scoring change (version 2). */
async function seededForm(count: number): Promise<Schema<'Form'>> {
  const { slug: _slug, ...body } = demoForm();
  const form = (await expectStatus(201, call('post', '/v1/forms', body))) as unknown as Schema<'Form'>;
  const templates = [
    { answers: anaAnswers(), hidden: anaHidden(), status: 'completed' as const },
    { answers: noBudgetAnswers(), hidden: {}, status: 'completed' as const },
    { answers: budgetAnswers(60_000), hidden: {}, status: 'completed' as const },
    { answers: { full_name: 'Pat', email: 'pat@example.com' }, hidden: {}, status: 'partial' as const },
  ].map((template) => {
    const answers = template.answers as Submission['answers'];
    const { visitedSteps, issues } = validateAnswers(form, answers, template.hidden, template.status);
    if (issues.length > 0) throw new Error(`template does not fit the form: ${JSON.stringify(issues)}`);
    return { ...template, answers, visitedSteps, ...scoreSubmission(form, answers, template.hidden) };
  });
  const start = Date.now() - 30 * 86_400_000;
  const step = (30 * 86_400_000) / count;
  for (let first = 0; first < count; first += SEED_BATCH) {
    db.transaction(() => {
      for (let index = first; index < Math.min(first + SEED_BATCH, count); index++) {
        const template = templates[index % templates.length]!;
        const at = new Date(Math.floor(start + index * step)).toISOString();
        const submission: Submission = {
          id: newId('sub'),
          object: 'submission',
          form_id: form.id,
          form_version: form.version,
          status: template.status,
          test: false,
          answers: template.answers,
          hidden: template.hidden,
          context: completeContext({}),
          metadata: {},
          completed_at: template.status === 'completed' ? at : null,
          visited_steps: template.visitedSteps,
          score: template.score,
          grade: template.grade,
          score_breakdown: template.breakdown,
          scored_at: at,
          created_at: at,
          updated_at: at,
        };
        insertSubmissionRow(db, { submission, workspaceId: workspace.workspace_id, environment: 'live' });
      }
    })();
    if ((first / SEED_BATCH) % 20 === 19) log(`  seeded ${(first + SEED_BATCH).toLocaleString('en')} rows`);
  }
  const scoring = {
    rules: [{ id: 'big_budget', when: { field: 'budget_usd', op: 'gte', value: 50000 }, points: 60 }],
    grades: [
      { label: 'A', min_score: 50 },
      { label: 'B', min_score: 20 },
      { label: 'C', min_score: 0 },
    ],
  };
  await expectStatus(200, call('patch', `/v1/forms/${form.id}`, { scoring }));
  return form;
}

/**
 * The longest store call of a batch. On SQLite a store call runs synchronously from start to end, so its duration
 * is how long it holds the event loop; unlike the event-loop histogram, it does not count time the operating
 * system gave to other processes (this machine is shared).
 */
let storeCalls: Array<{ wallMs: number; cpuMs: number }> = [];
const rescoreJobs = store.rescoreJobs;
for (const name of ['candidates', 'applyBatch'] as const) {
  const original = rescoreJobs[name].bind(rescoreJobs) as (...args: unknown[]) => Promise<unknown>;
  (rescoreJobs as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await original(...args);
    const used = process.cpuUsage(cpu);
    storeCalls.push({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
    return result;
  };
}
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

interface JobRun {
  batch_size: number;
  rows: number;
  changed: number;
  seconds: number;
  rows_per_second: number;
  /** Wall time of the store calls (each one synchronous block): the 99th percentile and the longest. */
  store_call_p99_ms: number;
  store_call_max_ms: number;
  /** CPU time of the longest store call: the block without the time this shared machine gave to other processes. */
  store_call_max_cpu_ms: number;
  event_loop_max_ms: number;
  event_loop_p99_ms: number;
}

/** Starts a job through the API and runs it with the worker, measuring the event loop meanwhile. */
async function rescoreAll(formId: string, batchSize: number): Promise<JobRun> {
  const job = await expectStatus(202, call('post', `/v1/forms/${formId}/rescore`));
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  storeCalls = [];
  const started = performance.now();
  await runRescoreJobs(built.services, { batchSize });
  const seconds = (performance.now() - started) / 1000;
  histogram.disable();
  const done = await expectStatus(200, call('get', `/v1/rescore_jobs/${job.id}`));
  if (done.status !== 'succeeded') throw new Error(`job ended ${JSON.stringify(done)}`);
  const rows = done.processed as number;
  return {
    batch_size: batchSize,
    rows,
    changed: done.changed as number,
    seconds: round(seconds, 2),
    rows_per_second: Math.round(rows / seconds),
    store_call_p99_ms: round(
      quantile(
        storeCalls.map((call) => call.wallMs),
        0.99,
      ),
    ),
    store_call_max_ms: round(
      quantile(
        storeCalls.map((call) => call.wallMs),
        1,
      ),
    ),
    store_call_max_cpu_ms: round(
      quantile(
        storeCalls.map((call) => call.cpuMs),
        1,
      ),
    ),
    event_loop_max_ms: round(histogram.max / 1e6),
    event_loop_p99_ms: round(histogram.percentile(99) / 1e6),
  };
}

// ---- 1. batch-size sweep ----
log(`Batch-size sweep on ${SWEEP_ROWS.toLocaleString('en')} submissions`);
const sweep: JobRun[] = [];
for (const batchSize of SWEEP_BATCHES) {
  const form = await seededForm(SWEEP_ROWS);
  const run = await rescoreAll(form.id, batchSize);
  sweep.push(run);
  log(
    `  batch ${batchSize}: ${run.rows_per_second.toLocaleString('en')} rows/s, store call p99 ${run.store_call_p99_ms} ms (max ` +
      `${run.store_call_max_ms} ms, max CPU ${run.store_call_max_cpu_ms} ms), event-loop max ${run.event_loop_max_ms} ms`,
  );
}

// ---- 2. the whole job at one million submissions, with requests served meanwhile ----
log(`Seeding ${TOTAL_ROWS.toLocaleString('en')} submissions`);
const big = await seededForm(TOTAL_ROWS);
// Warm-up: the first request of a route compiles its validators, which is not what is measured here.
for (let warm = 0; warm < 20; warm++) await expectStatus(200, call('get', `/v1/submissions?form_id=${big.id}&limit=1`));
const latencies: number[] = [];
let probing = true;
const probe = (async () => {
  while (probing) {
    const started = performance.now();
    await expectStatus(200, call('get', `/v1/submissions?form_id=${big.id}&limit=1`));
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
})();
const full = await rescoreAll(big.id, defaultRescoreBatchSize);
probing = false;
await probe;
const sorted = [...latencies].sort((a, b) => a - b);
const concurrent = {
  requests: sorted.length,
  median_ms: round(sorted[Math.floor(sorted.length / 2)] ?? 0, 2),
  p99_ms: round(sorted[Math.floor(sorted.length * 0.99)] ?? 0, 2),
  max_ms: round(sorted[sorted.length - 1] ?? 0, 2),
};

const report = { rows: TOTAL_ROWS, sweep_rows: SWEEP_ROWS, sweep, full, concurrent_requests: concurrent };
log('');
log(
  '| batch size | rows | rows/s | store call p99 (ms) | store call max (ms) | max CPU per call (ms) | event-loop delay max (ms) | p99 (ms) |',
);
log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const run of [...sweep, full]) {
  log(
    `| ${run.batch_size} | ${run.rows.toLocaleString('en')} | ${run.rows_per_second.toLocaleString('en')} | ${run.store_call_p99_ms} | ` +
      `${run.store_call_max_ms} | ${run.store_call_max_cpu_ms} | ${run.event_loop_max_ms} | ${run.event_loop_p99_ms} |`,
  );
}
log('');
log(`Whole job at ${full.rows.toLocaleString('en')} rows: ${full.seconds} s (${full.changed.toLocaleString('en')} changed).`);
log(
  `GET /v1/submissions?limit=1 every ${PROBE_INTERVAL_MS} ms meanwhile: ${concurrent.requests} requests, median ` +
    `${concurrent.median_ms} ms, p99 ${concurrent.p99_ms} ms, max ${concurrent.max_ms} ms.`,
);
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/rescore-bench.json'), `${JSON.stringify(report, null, 2)}\n`);

agent.destroy();
server.close();
db.close();
rmSync(dir, { recursive: true, force: true });
