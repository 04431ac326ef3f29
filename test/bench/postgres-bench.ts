/**
 * `npm run bench:postgres`: the server on PostgreSQL as an operator runs it (`npm start`'s entry in its own
 * process, TLS, full pipeline). Not a test: it prints a table and writes dist/bench-postgres.json.
 *
 * 1. `POST /v1/submissions` (to one form, and spread over 100 forms) and `GET /v1/forms/{id}` under autocannon
 *    (another process, 16 connections), with 1 and with 2 worker processes, each deployment on a database of its
 *    own; beside them plain Express over TLS in a process of its own (postgres-plain-server.ts) doing one `pg`
 *    INSERT per POST and sending the form's JSON from memory per GET. The three stay up and the loads take turns,
 *    round by round (BENCH_ROUNDS, default 5; every other round in reverse order). Prints each ratio to its baseline
 *    and WORKERS=2 against 1: the median of the rounds' own ratios, with their range.
 * 2. A million submissions of one form (inserted by the database itself from a few answer sets the domain
 *    validated and scored, with the analytics aggregates the store would have written): GET /v1/analytics at
 *    10,000 and at 1,000,000 submissions, and GET /v1/submissions?limit=100 on the first page against the page
 *    after the 900,000th submission (keyset), for the workspace's list and the form's; then sorted by score, filtered
 *    by one grade and both (each cursor 90 % into its list), with the deep page's EXPLAIN ANALYZE plan.
 *
 * The PostgreSQL server is BENCH_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 * when it answers; the bench creates a database of its own on it and drops it at the end. REDIS_URL, when set,
 * puts the rate limits on Redis as in production (under a prefix of the bench's own). BENCH_WARMUP_SECONDS
 * (default 10; times the workers for the server) is the unmeasured load before the rounds; BENCH_SECONDS (default 10)
 * is each autocannon measurement's duration, BENCH_ROWS (default 1,000,000) the submissions seeded, BENCH_SAMPLES
 * (default 200) the requests per latency figure. BENCH_FIXED_RATE (off by default) adds POST loads at a fixed rate.
 */
import { type ChildProcess, execFile, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { dnsWebhookUrlPolicy } from '../../src/adapters/dns-resolver.js';
import type { Schema } from '../../src/contract.js';
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { completeContext, dayOf, gradeKey, sourceKey, stepCounts } from '../../src/store/rows/submissions.js';
import { anaAnswers, anaHidden, demoForm } from '../http/submissions-support.js';
import { median } from './median.js';
import { type CpuPerRequest, measureCpu } from './process-cpu.js';
import { scoredTemplates } from './submission-templates.js';

const localServer = 'postgres://postgres@127.0.0.1:5432/postgres';
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || ((await answers(localServer)) ? localServer : undefined);
if (!serverUrl) {
  process.stderr.write(
    `No PostgreSQL server: set BENCH_DATABASE_URL (or DATABASE_URL) to one the bench may create a database on (${localServer} did not ` +
      `answer)\n`,
  );
  process.exit(2);
}
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/**
 * Rounds of the throughput comparison: each round measures every load once, so each ratio is taken between loads
 * a few seconds apart, and the median of the rounds is reported with their range.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  process.stderr.write(`BENCH_ROUNDS must be a whole number of at least 1 (got ${process.env.BENCH_ROUNDS})\n`);
  process.exit(2);
}
/**
 * Load before each measurement, unmeasured: until V8 has compiled the request path (on threads of the server's
 * own, counted in its CPU), a server measures its warm-up. Each of N workers sees a N-th of the requests, so the
 * server's warm-up lasts N times as long. 2 s left one worker about a fifth below its steady rate, and two workers
 * further below theirs.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
/**
 * BENCH_FIXED_RATE (requests per second, off by default): three more POST loads per round at a fixed overall rate
 * rather than as fast as the server answers, one worker and two at that rate and one worker at half of it. At equal
 * load they show what a create costs each deployment in CPU, where the loads above mix cost with how much of the
 * machine each deployment manages to use.
 */
const FIXED_RATE = process.env.BENCH_FIXED_RATE ? Number(process.env.BENCH_FIXED_RATE) : undefined;
if (FIXED_RATE !== undefined && (!Number.isInteger(FIXED_RATE) || FIXED_RATE < 2)) {
  process.stderr.write(
    `BENCH_FIXED_RATE must be a whole number of requests per second, at least 2 (got ${process.env.BENCH_FIXED_RATE})\n`,
  );
  process.exit(2);
}
const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const FIRST_ROWS = Math.min(10_000, TOTAL_ROWS);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WINDOW_MS = 30 * 86_400_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number, decimals = 0) => Math.round(value * 10 ** decimals) / 10 ** decimals;
const run = promisify(execFile);
/** Kept alive, so latency figures do not include a TLS handshake each. */
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

const databaseName = `ff_bench_${randomBytes(4).toString('hex')}`;
/** The bench's databases: the first deployment's (which the million-row figures use), the second's, plain Express's. */
const databaseNames = [databaseName, `${databaseName}_w2`, `${databaseName}_plain`] as const;
/** The server's URL naming another database (its query string, `sslmode` say, kept as it is). */
const urlOf = (name: string) => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};
const databaseUrl = urlOf(databaseName);
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function startServer(workers: number, dataDir: string, databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: `ff-bench-${randomBytes(4).toString('hex')}`,
    WORKERS: String(workers),
    PORT: String(port),
    HOST: '127.0.0.1',
    // The request log is one line per request; the bench measures serving them, not writing them.
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY_PER_SECOND: '1000000',
    RATE_LIMIT_PER_WORKSPACE_PER_MINUTE: '100000000',
  };
  // What `npm start` runs: the compiled server in build/, rebuilt first when src/ changed.
  const child = spawn(process.execPath, ['src/cli/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (const started = Date.now(); !output.includes('Form-Funnel API listening'); ) {
    if (child.exitCode !== null || Date.now() - started > 180_000) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url: `https://127.0.0.1:${port}` };
}

/** Stops a server (its workers with it) and waits for it to exit; one that has already exited is left as it is. */
const stopServer = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** A load's figures with the CPU each part of the machine spent per request (process-cpu.ts). */
async function measured(serverPid: number, load: () => Promise<ReturnType<typeof summary>>) {
  const { result, cpu } = await measureCpu(serverPid, load, (figures) => figures.requests);
  return { ...result, cpu };
}
type Figure = Awaited<ReturnType<typeof measured>>;

/** One load's rounds as one figure: the median of each measure, the counts summed. */
function medianFigure(figures: Figure[]): Figure {
  const of = (measure: (figure: Figure) => number, decimals = 0) => round(median(figures.map(measure)), decimals);
  const cpu = Object.fromEntries(
    (Object.keys(figures[0]!.cpu) as Array<keyof CpuPerRequest>).map((field) => [field, of((figure) => figure.cpu[field], 2)]),
  ) as unknown as CpuPerRequest;
  return {
    requests_per_second: of((figure) => figure.requests_per_second),
    requests: figures.reduce((sum, figure) => sum + figure.requests, 0),
    p50_ms: of((figure) => figure.p50_ms, 1),
    p99_ms: of((figure) => figure.p99_ms, 1),
    failed: figures.reduce((sum, figure) => sum + figure.failed, 0),
    cpu,
  };
}

/** `rate`: requests per second over all connections; without it, each connection sends its next as soon as it is answered. */
async function autocannon(url: string, key: string, method: 'GET' | 'POST', body: string | undefined, seconds: number, rate?: number) {
  const args = ['-c', '16', '-d', String(seconds), '-j', '-m', method, '-H', `authorization=Bearer ${key}`];
  if (rate !== undefined) args.push('--overallRate', String(rate));
  if (body !== undefined) args.push('-H', 'content-type=application/json', '-b', body);
  const { stdout } = await run(join(root, 'node_modules/.bin/autocannon'), [...args, url], {
    env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return summary(JSON.parse(stdout));
}

/** The figures of one autocannon result. */
function summary(result: {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}) {
  return {
    requests_per_second: round(result.requests.average),
    requests: result.requests.total,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    failed: result.non2xx + result.errors,
  };
}

await onServer(`CREATE DATABASE ${databaseName}`);
const dataDir = mkdtempSync(join(tmpdir(), 'form-funnel-bench-pg-'));
const results: Record<string, unknown> = {
  node: process.version,
  cpus: cpus().length,
  seconds: SECONDS,
  redis: Boolean(process.env.REDIS_URL),
  load_average_at_start: loadavg().map((load) => round(load, 2)),
};
/** The server of the million-row figures, stopped however the bench ends. */
let server1: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  /** Every measurement of each load, one per round, by the load's name. */
  const rounds: Record<string, Figure[]> = {};
  /**
   * One deployment under test: WORKERS=1 or 2, each on a database of its own (the first is the bench's, which the
   * million-row figures below use), so neither's periodic jobs, caches or table growth touch the other's.
   */
  interface Deployment {
    workers: number;
    key: string;
    workspaceId: string;
    server: Awaited<ReturnType<typeof startServer>>;
    formId: string;
    submission: string;
    /** A file of submission bodies spread over 100 forms of the workspace (the first form among them). */
    spread: string;
  }
  const deployments: Deployment[] = [];
  /** Every server started, stopped however the measurements end. */
  const started: ChildProcess[] = [];
  let plain: Awaited<ReturnType<typeof startPlainServer>> | undefined;
  try {
    for (const workers of [1, 2]) {
      const url = urlOf(databaseNames[workers - 1]!);
      if (workers > 1) await onServer(`CREATE DATABASE ${databaseNames[workers - 1]}`);
      const store = await createPostgresStore(url, { max: 1 });
      const workspace = await bootstrapWorkspace(
        { store, now: () => new Date(), events: integrationEvents(), webhookUrls: dnsWebhookUrlPolicy() },
        { name: 'Bench', plan: 'business' },
      );
      await store.close();
      log(`Starting the server with WORKERS=${workers} on PostgreSQL...`);
      const server = await startServer(workers, join(dataDir, `workers-${workers}`), url);
      started.push(server.child);
      const key = workspace.live_admin_key;
      const { slug: _slug, ...form } = demoForm();
      const ids: string[] = [];
      for (let index = 0; index < 100; index++) {
        ids.push(String((await fetchJson('POST', `${server.url}/v1/forms`, key, { ...form, name: `${form.name} ${index}` })).id));
      }
      const spread = join(dataDir, `spread-submissions-${workers}.json`);
      writeFileSync(spread, JSON.stringify(ids.map((id) => ({ form_id: id, answers: anaAnswers(), hidden: anaHidden() }))));
      const submission = JSON.stringify({ form_id: ids[0], answers: anaAnswers(), hidden: anaHidden() });
      deployments.push({
        workers,
        key,
        workspaceId: workspace.workspace_id,
        server,
        formId: ids[0]!,
        submission,
        spread,
      });
    }
    const [one] = deployments as [Deployment];
    // The baseline answers what the full stack answers: the form's text as sent, a created submission's body.
    const formJson = await fetchText('GET', `${one.server.url}/v1/forms/${one.formId}`, one.key);
    const created = await fetchJson('POST', `${one.server.url}/v1/submissions`, one.key, JSON.parse(one.submission));
    const plainServer = await startPlainServer({
      databaseUrl: await plainDatabase(one.workspaceId, one.formId),
      formJson,
      created,
      workspaceId: one.workspaceId,
    });
    plain = plainServer;

    /** Every load of the comparison, by name; each measures one server for SECONDS. */
    const loads: Array<{ name: string; run: () => Promise<Figure> }> = [
      {
        name: 'plain_create',
        run: () =>
          measured(plainServer.child.pid!, () => autocannon(`${plainServer.url}/v1/submissions`, one.key, 'POST', one.submission, SECONDS)),
      },
      {
        name: 'plain_get',
        run: () =>
          measured(plainServer.child.pid!, () =>
            autocannon(`${plainServer.url}/v1/forms/${one.formId}`, one.key, 'GET', undefined, SECONDS),
          ),
      },
    ];
    for (const d of deployments) {
      const pid = d.server.child.pid!;
      loads.push(
        {
          name: `workers_${d.workers}_create`,
          run: () => measured(pid, () => autocannon(`${d.server.url}/v1/submissions`, d.key, 'POST', d.submission, SECONDS)),
        },
        {
          name: `workers_${d.workers}_create_100_forms`,
          run: () => measured(pid, () => rotatingLoad(`${d.server.url}/v1/submissions`, d.key, d.spread, SECONDS)),
        },
        {
          name: `workers_${d.workers}_get`,
          run: () => measured(pid, () => autocannon(`${d.server.url}/v1/forms/${d.formId}`, d.key, 'GET', undefined, SECONDS)),
        },
      );
    }
    if (FIXED_RATE !== undefined) {
      const atRate = (d: Deployment, rate: number) => () =>
        measured(d.server.child.pid!, () => autocannon(`${d.server.url}/v1/submissions`, d.key, 'POST', d.submission, SECONDS, rate));
      const [single, double] = deployments as [Deployment, Deployment];
      loads.push(
        { name: 'workers_1_create_fixed_rate', run: atRate(single, FIXED_RATE) },
        { name: 'workers_2_create_fixed_rate', run: atRate(double, FIXED_RATE) },
        { name: 'workers_1_create_half_rate', run: atRate(single, Math.round(FIXED_RATE / 2)) },
      );
    }
    log(`Warming up: plain Express ${WARMUP_SECONDS} s, each deployment ${WARMUP_SECONDS} s per worker, for POST and for GET...`);
    await autocannon(`${plainServer.url}/v1/submissions`, one.key, 'POST', one.submission, WARMUP_SECONDS);
    await autocannon(`${plainServer.url}/v1/forms/${one.formId}`, one.key, 'GET', undefined, WARMUP_SECONDS);
    for (const d of deployments) {
      await autocannon(`${d.server.url}/v1/submissions`, d.key, 'POST', d.submission, WARMUP_SECONDS * d.workers);
      await autocannon(`${d.server.url}/v1/forms/${d.formId}`, d.key, 'GET', undefined, WARMUP_SECONDS * d.workers);
    }
    // A shared machine's speed drifts by more than the differences measured here (the load generator's own CPU per
    // request moves with it), so the loads take turns: every round measures each once, every other round in the
    // reverse order, and each ratio is taken within a round, then the median of the rounds is reported.
    for (let turn = 0; turn < ROUNDS; turn++) {
      log(`  round ${turn + 1} of ${ROUNDS}: ${loads.length} loads of ${SECONDS} s each (16 connections)...`);
      for (const load of turn % 2 === 0 ? loads : [...loads].reverse()) {
        const figure = await load.run();
        rounds[load.name] = [...(rounds[load.name] ?? []), figure];
      }
    }
  } finally {
    if (plain?.child.connected) plain.child.disconnect();
    for (const child of started) await stopServer(child);
  }
  const { key, formId, workspaceId } = deployments[0]!;
  /** Each load's rounds as their median figures (the ratios below are each round's, then their median). */
  const baseline = { create: medianFigure(rounds.plain_create!), get: medianFigure(rounds.plain_get!) };
  const figures: Record<string, { create: Figure; get: Figure; create_100_forms: Figure }> = {};
  for (const workers of [1, 2]) {
    figures[`workers_${workers}`] = {
      create: medianFigure(rounds[`workers_${workers}_create`]!),
      create_100_forms: medianFigure(rounds[`workers_${workers}_create_100_forms`]!),
      get: medianFigure(rounds[`workers_${workers}_get`]!),
    };
  }
  /** The ratio of two loads' rates in each round, and their median. */
  const ratios = (load: string, to: string) => {
    const each = rounds[load]!.map((figure, turn) => round(figure.requests_per_second / rounds[to]![turn]!.requests_per_second, 2));
    return { median: round(median(each), 2), rounds: each };
  };
  /** The ratio of two loads' server CPU per request in each round, and their median. */
  const cpuRatios = (load: string, to: string) => {
    const each = rounds[load]!.map((figure, turn) => round(figure.cpu.server_us / rounds[to]![turn]!.cpu.server_us, 2));
    return { median: round(median(each), 2), rounds: each };
  };
  log(`Seeding ${FIRST_ROWS.toLocaleString('en')} submissions over 30 days...`);
  const seeding = await openPostgres(databaseUrl, { max: 1 });
  server1 = await startServer(1, join(dataDir, 'workers-1'), databaseUrl);
  const form = (await fetchJson('GET', `${server1.url}/v1/forms/${formId}`, key)) as unknown as Schema<'Form'>;
  const seeder = submissionSeeder(seeding, form, workspaceId);
  await seeder.seed(FIRST_ROWS, 0);
  const analyticsPath = `/v1/analytics?form_id=${formId}&from=${seeder.firstDay}&to=${seeder.lastDay}`;
  const analyticsSmall = await latency(server1.url, key, analyticsPath);
  log(`Seeding ${(TOTAL_ROWS - FIRST_ROWS).toLocaleString('en')} more over the same 30 days...`);
  await seeder.seed(TOTAL_ROWS - FIRST_ROWS, Math.floor(WINDOW_MS / TOTAL_ROWS / 2));
  log(`Seeded ${seeder.seeded().toLocaleString('en')} rows in ${round(seeder.seconds(), 1)} s; measuring with WORKERS=1...`);
  const analyticsLarge = await latency(server1.url, key, analyticsPath);
  const deepIndex = Math.floor(TOTAL_ROWS * 0.9) - 1;
  const deep = (
    await seeding.query(
      `SELECT id FROM submissions WHERE workspace_id = $1 AND environment = 'live' ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET $2`,
      [workspaceId, deepIndex],
    )
  ).rows[0] as { id: string };
  // The form's own deep row: the workspace's may belong to one of the other 99 forms the POSTs above went to.
  const formDeepRow = (
    await seeding.query(
      `SELECT id FROM submissions WHERE workspace_id = $1 AND environment = 'live' AND form_id = $2
        ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET $3`,
      [workspaceId, formId, deepIndex],
    )
  ).rows[0] as { id: string };
  // Sorted and grade-filtered pages (issue 11): each deep cursor 90 % into its own list; the plan of the deep page
  // is the store's query (keyset row comparison from the cursor), shown with EXPLAIN ANALYZE.
  const finds = [
    { name: 'by -score', query: 'sort=-score', where: '', orderBy: 'score DESC, id DESC', key: 'score', type: 'integer' },
    {
      name: 'grade=A',
      query: 'grade=A',
      where: `AND grade = 'A'`,
      orderBy: 'created_at DESC, id DESC',
      key: 'created_at',
      type: 'timestamptz',
    },
    {
      name: 'grade=A by -score',
      query: 'grade=A&sort=-score',
      where: `AND grade = 'A'`,
      orderBy: 'score DESC, id DESC',
      key: 'score',
      type: 'integer',
    },
  ];
  const findCursors: Array<{ id: string; position: number; count: number }> = [];
  for (const find of finds) {
    const inList = `workspace_id = $1 AND environment = 'live' ${find.where}`;
    const { count } = (await seeding.query(`SELECT COUNT(*)::int AS count FROM submissions WHERE ${inList}`, [workspaceId])).rows[0];
    const position = Math.min(900_000, Math.floor(count * 0.9));
    const cursor = (
      await seeding.query(`SELECT id, ${find.key} AS key FROM submissions WHERE ${inList} ORDER BY ${find.orderBy} LIMIT 1 OFFSET $2`, [
        workspaceId,
        position - 1,
      ])
    ).rows[0] as { id: string; key: unknown };
    findCursors.push({ id: cursor.id, position, count });
    const plan = await seeding.query(
      `EXPLAIN (ANALYZE, COSTS OFF) SELECT s.* FROM submissions s WHERE s.${inList.replaceAll('AND ', 'AND s.')}
         AND (s.${find.key}, s.id) < ($2::${find.type}, $3::text) ORDER BY s.${find.orderBy.replaceAll(', ', ', s.')} LIMIT 101`,
      [workspaceId, cursor.key, cursor.id],
    );
    log(`Plan of the page after row ${position.toLocaleString('en')} of ${count.toLocaleString('en')}, ${find.name}:`);
    for (const line of plan.rows) log(`  ${line['QUERY PLAN']}`);
  }
  await seeding.end();
  const findLists = [];
  for (const [index, find] of finds.entries()) {
    findLists.push({
      name: find.name,
      cursor_row: findCursors[index]!.position,
      rows: findCursors[index]!.count,
      first: (await latency(server1.url, key, `/v1/submissions?limit=100&${find.query}`)).latency,
      deep: (await latency(server1.url, key, `/v1/submissions?limit=100&${find.query}&starting_after=${findCursors[index]!.id}`)).latency,
    });
  }
  const lists = {
    first: await latency(server1.url, key, '/v1/submissions?limit=100'),
    deep: await latency(server1.url, key, `/v1/submissions?limit=100&starting_after=${deep.id}`),
    formFirst: await latency(server1.url, key, `/v1/submissions?limit=100&form_id=${formId}`),
    formDeep: await latency(server1.url, key, `/v1/submissions?limit=100&form_id=${formId}&starting_after=${formDeepRow.id}`),
  };
  await stopServer(server1.child);
  const ratio = (a: number, b: number) => round(a / b, 2);
  const million = {
    rows: seeder.seeded(),
    seeding_seconds: round(seeder.seconds(), 1),
    analytics: {
      small: { submissions: analyticsSmall.submissions, ...analyticsSmall.latency },
      large: { submissions: analyticsLarge.submissions, ...analyticsLarge.latency },
      ratio_median: ratio(analyticsLarge.latency.median_ms, analyticsSmall.latency.median_ms),
    },
    list_page: {
      first: lists.first.latency,
      deep_900k: lists.deep.latency,
      ratio_median: ratio(lists.deep.latency.median_ms, lists.first.latency.median_ms),
      form_first: lists.formFirst.latency,
      form_deep_900k: lists.formDeep.latency,
      form_ratio_median: ratio(lists.formDeep.latency.median_ms, lists.formFirst.latency.median_ms),
    },
    find_page: findLists.map((find) => ({ ...find, ratio_median: ratio(find.deep.median_ms, find.first.median_ms) })),
  };
  Object.assign(results, figures, { submissions: million, load_average_at_end: loadavg().map((load) => round(load, 2)) });

  const rows: string[][] = [];
  for (const [name, { create, get, create_100_forms: create100 }] of Object.entries(figures)) {
    const workers = name.replace('workers_', '');
    rows.push([
      `POST /v1/submissions, ${workers} worker(s)`,
      `${create.requests_per_second} req/s`,
      `p50 ${create.p50_ms} ms, p99 ${create.p99_ms} ms, ${create.failed} failed`,
    ]);
    rows.push([
      `POST /v1/submissions over 100 forms, ${workers} worker(s)`,
      `${create100.requests_per_second} req/s`,
      `p50 ${create100.p50_ms} ms, p99 ${create100.p99_ms} ms, ${create100.failed} failed`,
    ]);
    rows.push([
      `GET /v1/forms/{id}, ${workers} worker(s)`,
      `${get.requests_per_second} req/s`,
      `p50 ${get.p50_ms} ms, p99 ${get.p99_ms} ms, ${get.failed} failed`,
    ]);
  }
  const deepRow = (deepIndex + 1).toLocaleString('en');
  rows.push(
    [
      'seeding (INSERT … SELECT)',
      `${round(seeder.seeded() / seeder.seconds()).toLocaleString('en')} rows/s`,
      `${million.rows.toLocaleString('en')} rows`,
    ],
    [
      `analytics, ${analyticsSmall.submissions.toLocaleString('en')} submissions`,
      `${analyticsSmall.latency.median_ms} ms`,
      `p95 ${analyticsSmall.latency.p95_ms} ms`,
    ],
    [
      `analytics, ${analyticsLarge.submissions.toLocaleString('en')} submissions`,
      `${analyticsLarge.latency.median_ms} ms`,
      `p95 ${analyticsLarge.latency.p95_ms} ms, ratio ${million.analytics.ratio_median}x (target <= 2x)`,
    ],
    ['list, first page (limit 100)', `${lists.first.latency.median_ms} ms`, `p95 ${lists.first.latency.p95_ms} ms`],
    [
      `list, after row ${deepRow}`,
      `${lists.deep.latency.median_ms} ms`,
      `p95 ${lists.deep.latency.p95_ms} ms, ratio ${million.list_page.ratio_median}x (target <= 1.2x)`,
    ],
    ['list by form, first page', `${lists.formFirst.latency.median_ms} ms`, `p95 ${lists.formFirst.latency.p95_ms} ms`],
    [
      `list by form, after row ${deepRow}`,
      `${lists.formDeep.latency.median_ms} ms`,
      `p95 ${lists.formDeep.latency.p95_ms} ms, ratio ${million.list_page.form_ratio_median}x (target <= 1.2x)`,
    ],
  );
  for (const find of million.find_page) {
    rows.push(
      [`list ${find.name}, first page`, `${find.first.median_ms} ms`, `p95 ${find.first.p95_ms} ms`],
      [
        `list ${find.name}, after row ${find.cursor_row.toLocaleString('en')} of ${find.rows.toLocaleString('en')}`,
        `${find.deep.median_ms} ms`,
        `p95 ${find.deep.p95_ms} ms, ratio ${find.ratio_median}x (target <= 1.2x)`,
      ],
    );
  }
  const width = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  log('');
  log(rows.map((row) => row.map((cell, column) => cell.padEnd(width[column]!)).join('  ')).join('\n'));
  const twoToOne = {
    create: ratios('workers_2_create', 'workers_1_create'),
    create_100_forms: ratios('workers_2_create_100_forms', 'workers_1_create_100_forms'),
    get: ratios('workers_2_get', 'workers_1_get'),
  };
  const scale = (kind: keyof typeof twoToOne) => twoToOne[kind].median;
  results.two_to_one = twoToOne;
  results.rounds = rounds;
  const one = figures.workers_1!;
  const sideRatios = {
    create: ratios('workers_1_create', 'plain_create'),
    create_100_forms: ratios('workers_1_create_100_forms', 'plain_create'),
    get: ratios('workers_1_get', 'plain_get'),
    one_form_to_100_forms: ratios('workers_1_create', 'workers_1_create_100_forms'),
  };
  const sideBySide = {
    plain_express: baseline,
    create: sideRatios.create.median,
    create_100_forms: sideRatios.create_100_forms.median,
    get: sideRatios.get.median,
    one_form_to_100_forms: sideRatios.one_form_to_100_forms.median,
    rounds: Object.fromEntries(Object.entries(sideRatios).map(([name, ratio]) => [name, ratio.rounds])),
  };
  results.side_by_side = sideBySide;
  /** A median ratio with its rounds' range, when there is more than one round. */
  const spread = (ratio: { median: number; rounds: number[] }) =>
    ratio.rounds.length > 1 ? ` (rounds ${Math.min(...ratio.rounds)}-${Math.max(...ratio.rounds)})` : '';
  const sideRows = [
    ['one worker, against plain Express in the same run', 'full stack', 'plain Express', 'ratio', 'target'],
    [
      'POST /v1/submissions, one form',
      `${one.create.requests_per_second} req/s`,
      `${baseline!.create.requests_per_second} req/s (one pg INSERT)`,
      `${sideBySide.create}x${spread(sideRatios.create)}`,
      '>= 0.5x (aim 0.7x)',
    ],
    [
      'POST /v1/submissions, 100 forms',
      `${one.create_100_forms.requests_per_second} req/s`,
      `${baseline!.create.requests_per_second} req/s (one pg INSERT)`,
      `${sideBySide.create_100_forms}x${spread(sideRatios.create_100_forms)}`,
      `one form at ${sideBySide.one_form_to_100_forms}x of 100 forms${spread(sideRatios.one_form_to_100_forms)} (within 20 %)`,
    ],
    [
      'GET /v1/forms/{id}',
      `${one.get.requests_per_second} req/s`,
      `${baseline!.get.requests_per_second} req/s (JSON from memory)`,
      `${sideBySide.get}x${spread(sideRatios.get)}`,
      '>= 0.6x (aim 0.9x)',
    ],
  ];
  const sideWidth = [0, 1, 2, 3, 4].map((column) => Math.max(...sideRows.map((row) => row[column]!.length)));
  log('');
  log(sideRows.map((row) => row.map((cell, column) => cell.padEnd(sideWidth[column]!)).join('  ')).join('\n'));
  const cpuRows: Array<[string, CpuPerRequest]> = [
    ['plain Express, POST (one pg INSERT)', baseline!.create.cpu],
    ['plain Express, GET (JSON from memory)', baseline!.get.cpu],
  ];
  for (const [name, { create, get, create_100_forms: create100 }] of Object.entries(figures)) {
    const workers = name.replace('workers_', '');
    cpuRows.push(
      [`POST /v1/submissions, ${workers} worker(s)`, create.cpu],
      [`POST over 100 forms, ${workers} worker(s)`, create100.cpu],
      [`GET /v1/forms/{id}, ${workers} worker(s)`, get.cpu],
    );
  }
  const cpuTable = [
    [
      'CPU per request, in microseconds',
      'server',
      'PostgreSQL',
      'Redis',
      'load generator',
      'server, cores',
      'these, cores',
      'machine, cores',
    ],
    ...cpuRows.map(([name, cpu]) => [
      name,
      String(cpu.server_us),
      String(cpu.postgres_us),
      String(cpu.redis_us),
      String(cpu.load_generator_us),
      String(cpu.server_cores),
      String(cpu.total_cores),
      String(cpu.machine_cores),
    ]),
  ];
  const cpuWidth = cpuTable[0]!.map((_, column) => Math.max(...cpuTable.map((row) => row[column]!.length)));
  log('');
  log(
    cpuTable
      .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(cpuWidth[0]!) : cell.padStart(cpuWidth[column]!))).join('  '))
      .join('\n'),
  );
  const serverGrowth = (round(figures.workers_2!.create.cpu.server_us / one.create.cpu.server_us, 2) - 1) * 100;
  log(
    `\n2 workers / 1 worker, median of ${ROUNDS} round(s): POST ${scale('create')}x${spread(twoToOne.create)}, POST over 100 forms ` +
      `${scale('create_100_forms')}x${spread(twoToOne.create_100_forms)}, GET ${scale('get')}x${spread(twoToOne.get)} ` +
      `on ${cpus().length} cores. With 1 worker the server kept ${one.create.cpu.server_cores} of a core busy on POST and the ` +
      `machine ${one.create.cpu.machine_cores} of ${cpus().length} cores (GET: ${one.get.cpu.server_cores} and ` +
      `${one.get.cpu.machine_cores}); with 2 workers a POST cost the server ` +
      `${figures.workers_2!.create.cpu.server_us} instead of ${one.create.cpu.server_us} microseconds (${serverGrowth >= 0 ? '+' : ''}${Math.round(serverGrowth)} %). ` +
      'A second worker only gains what the machine has left over while one worker is the bound: here PostgreSQL, the load ' +
      'generator and (with REDIS_URL) Redis share the same cores.',
  );
  if (FIXED_RATE !== undefined) {
    const fixed = {
      rate: FIXED_RATE,
      workers_1: medianFigure(rounds.workers_1_create_fixed_rate!),
      workers_2: medianFigure(rounds.workers_2_create_fixed_rate!),
      workers_1_half_rate: medianFigure(rounds.workers_1_create_half_rate!),
      /** Each round's server CPU per create with 2 workers over 1, and with 1 worker at half the rate over the full rate. */
      server_cpu_2_to_1: cpuRatios('workers_2_create_fixed_rate', 'workers_1_create_fixed_rate'),
      server_cpu_half_to_full: cpuRatios('workers_1_create_half_rate', 'workers_1_create_fixed_rate'),
    };
    results.fixed_rate = fixed;
    const at = (figure: Figure) =>
      `${figure.requests_per_second} req/s, server ${figure.cpu.server_us} us, PostgreSQL ${figure.cpu.postgres_us} us per create`;
    log(
      `\nPOST at a fixed rate, medians of ${ROUNDS} round(s): ${FIXED_RATE} req/s to 1 worker: ${at(fixed.workers_1)}; to 2 workers: ` +
        `${at(fixed.workers_2)}; ${Math.round(FIXED_RATE / 2)} req/s to 1 worker: ${at(fixed.workers_1_half_rate)}. Server CPU per ` +
        `create, 2 workers / 1: ${fixed.server_cpu_2_to_1.median}x${spread(fixed.server_cpu_2_to_1)}; 1 worker at half the rate / ` +
        `at the full rate: ${fixed.server_cpu_half_to_full.median}x${spread(fixed.server_cpu_half_to_full)}.`,
    );
  }
  log(
    `Load average (1, 5, 15 min) at start ${(results.load_average_at_start as number[]).join(', ')}, at end ` +
      `${(results.load_average_at_end as number[]).join(', ')}`,
  );
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist/bench-postgres.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('Wrote dist/bench-postgres.json');
} finally {
  if (server1 && server1.child.exitCode === null) await stopServer(server1.child);
  for (const name of databaseNames) {
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error) => log(`Could not drop ${name}: ${error}`));
  }
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * A database of its own for plain Express's inserts, so neither deployment's tables grow by them: the same schema,
 * with copies of the workspace's and the form's rows its inserts refer to.
 */
async function plainDatabase(workspaceId: string, formId: string): Promise<string> {
  const name = databaseNames[2];
  await onServer(`CREATE DATABASE ${name}`);
  const url = urlOf(name);
  await (await createPostgresStore(url, { max: 1 })).close();
  const from = new pg.Client({ connectionString: databaseUrl });
  const to = new pg.Client({ connectionString: url });
  await Promise.all([from.connect(), to.connect()]);
  try {
    for (const [table, id] of [
      ['workspaces', workspaceId],
      ['forms', formId],
    ] as const) {
      const { rows } = await from.query(`SELECT row_to_json(t) AS row FROM ${table} t WHERE id = $1`, [id]);
      await to.query(`INSERT INTO ${table} SELECT * FROM json_populate_record(NULL::${table}, $1)`, [rows[0].row]);
    }
  } finally {
    await Promise.all([from.end(), to.end()]);
  }
  return url;
}

/** The baseline server (postgres-plain-server.ts) in a process of its own, as the server under test runs in its own. */
async function startPlainServer(setup: { databaseUrl: string; formJson: string; created: Record<string, unknown>; workspaceId: string }) {
  const child = fork(join(root, 'test/bench/postgres-plain-server.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the plain Express server exited (${code})`)));
    child.send(setup);
  });
  return { child, url: `https://127.0.0.1:${port}` };
}

/** `POST` with each request's body the next of the file's bodies, 16 connections (rotating-load.mjs in another process). */
async function rotatingLoad(url: string, key: string, bodiesFile: string, seconds: number) {
  const { stdout } = await run(
    process.execPath,
    [join(root, 'test/bench/rotating-load.mjs'), url, `Bearer ${key}`, String(seconds), bodiesFile],
    {
      env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return summary(JSON.parse(stdout));
}

/** The body of one GET as the server sent it. */
async function fetchText(method: 'GET', url: string, key: string): Promise<string> {
  return JSON.stringify(await fetchJson(method, url, key));
}

/** One request to the bench's own server, whose certificate is self-signed; a status other than 200/201 throws. */
function fetchJson(method: 'GET' | 'POST', url: string, key: string, body?: unknown): Promise<Record<string, unknown>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method, agent, headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200 && response.statusCode !== 201) reject(new Error(`${url}: ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text) as Record<string, unknown>);
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

interface Latency {
  median_ms: number;
  p95_ms: number;
}

/** Sequential requests over one kept-alive connection (after 20 unmeasured ones); the analytics total when it is one. */
async function latency(base: string, key: string, path: string): Promise<{ latency: Latency; submissions: number }> {
  const samples: number[] = [];
  let body: Record<string, unknown> = {};
  for (let index = -20; index < SAMPLES; index++) {
    const started = performance.now();
    body = await fetchJson('GET', `${base}${path}`, key);
    if (index >= 0) samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!, 2);
  return {
    latency: { median_ms: at(0.5), p95_ms: at(0.95) },
    submissions: Number((body.submissions as { started?: number })?.started ?? 0),
  };
}

/**
 * Seeds submissions of one form straight into the database: the database generates the rows (one INSERT … SELECT
 * per answer set and 100,000 rows), spread evenly over 30 days, and the analytics aggregates are then recounted
 * from the rows with the store's own funnel rules (src/store/rows/submissions.ts), as inserting each through
 * the store would have left them.
 */
function submissionSeeder(pool: pg.Pool, form: Schema<'Form'>, workspaceId: string) {
  const templates = scoredTemplates(form);
  const windowEnd = Date.now() - 60_000;
  const windowStart = windowEnd - WINDOW_MS;
  let seeded = 0;
  let ms = 0;
  const insert = `
    INSERT INTO submissions (id, workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps,
      score, grade, score_breakdown, scored_at, created_at, updated_at)
    SELECT 'sub_' || substr(md5($1 || i), 1, 24), $2, 'live', $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, at, at, at
      FROM generate_series($12::bigint, $13::bigint) AS i,
      LATERAL (SELECT 'epoch'::timestamptz + floor($14::float8 + i * $15::float8)::bigint * interval '1 millisecond' AS at) AS t
     WHERE i % $16 = $17`;
  return {
    firstDay: new Date(windowStart).toISOString().slice(0, 10),
    lastDay: new Date(windowEnd).toISOString().slice(0, 10),
    seeded: () => seeded,
    seconds: () => ms / 1000,
    async seed(count: number, offsetMs: number) {
      const started = performance.now();
      const salt = randomBytes(8).toString('hex');
      const step = WINDOW_MS / count;
      for (let first = 0; first < count; first += 100_000) {
        const last = Math.min(first + 100_000, count) - 1;
        for (const [index, template] of templates.entries()) {
          await pool.query(insert, [
            salt,
            workspaceId,
            form.id,
            form.version,
            template.status,
            JSON.stringify(template.answers),
            JSON.stringify(template.hidden),
            JSON.stringify(template.visited_steps),
            template.score,
            template.grade,
            JSON.stringify(template.score_breakdown),
            first,
            last,
            windowStart + offsetMs,
            step,
            templates.length,
            index,
          ]);
        }
        if (count > 100_000) log(`  seeded ${(seeded + last + 1).toLocaleString('en')} rows`);
      }
      seeded += count;
      await recountFunnel(pool, form.id);
      await pool.query('ANALYZE submissions');
      ms += performance.now() - started;
    },
  };
}

/** Rewrites the form's aggregate rows from its submissions, each group of equal rows counted as one times its size. */
async function recountFunnel(pool: pg.Pool, formId: string): Promise<void> {
  const { rows: groups } = await pool.query<{
    status: 'partial' | 'completed';
    score: number;
    grade: string | null;
    visited_steps: string[];
    source: string | null;
    day: string;
    count: number;
  }>(
    `SELECT status, score, grade, visited_steps, utm_source AS source, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            count(*)::int AS count
       FROM submissions WHERE form_id = $1 AND environment = 'live' GROUP BY 1, 2, 3, 4, 5, 6`,
    [formId],
  );
  const days = new Map<string, { started: number; completed: number; scoreSum: number; scoreCount: number }>();
  const steps = new Map<string, { day: string; stepId: string; reached: number; droppedOff: number }>();
  const grades = new Map<string, { day: string; grade: string; completed: number }>();
  const sources = new Map<string, { day: string; source: string; started: number; completed: number }>();
  for (const group of groups) {
    const facts = {
      form_id: formId,
      status: group.status,
      score: group.score,
      grade: group.grade,
      visited_steps: group.visited_steps,
      created_at: group.day,
      context: completeContext(group.source === null ? undefined : { utm: { source: group.source } }),
    };
    const day = dayOf(`${group.day}T00:00:00.000Z`);
    const completed = group.status === 'completed' ? group.count : 0;
    const totals = days.get(day) ?? { started: 0, completed: 0, scoreSum: 0, scoreCount: 0 };
    days.set(day, {
      started: totals.started + group.count,
      completed: totals.completed + completed,
      scoreSum: totals.scoreSum + completed * group.score,
      scoreCount: totals.scoreCount + completed,
    });
    for (const step of stepCounts(facts, 1)) {
      const sum = steps.get(`${day} ${step.stepId}`) ?? { day, stepId: step.stepId, reached: 0, droppedOff: 0 };
      steps.set(`${day} ${step.stepId}`, {
        ...sum,
        reached: sum.reached + step.reached * group.count,
        droppedOff: sum.droppedOff + step.droppedOff * group.count,
      });
    }
    const source = sourceKey(facts.context);
    const bySource = sources.get(`${day} ${source}`) ?? { day, source, started: 0, completed: 0 };
    sources.set(`${day} ${source}`, { ...bySource, started: bySource.started + group.count, completed: bySource.completed + completed });
    if (completed) {
      const grade = gradeKey(group.grade);
      const sum = grades.get(`${day} ${grade}`) ?? { day, grade, completed: 0 };
      grades.set(`${day} ${grade}`, { ...sum, completed: sum.completed + completed });
    }
  }
  for (const table of [
    'submission_aggregate_deltas',
    'submission_days',
    'submission_step_days',
    'submission_grade_days',
    'submission_source_days',
  ]) {
    await pool.query(`DELETE FROM ${table} WHERE form_id = $1`, [formId]);
  }
  const dayRows = [...days.entries()];
  await pool.query(
    `INSERT INTO submission_days (form_id, environment, day, started, completed, score_sum, score_count)
     SELECT $1, 'live', * FROM unnest($2::text[], $3::int[], $4::int[], $5::bigint[], $6::int[])`,
    [
      formId,
      ...[0, 1, 2, 3, 4].map((column) => dayRows.map(([day, t]) => [day, t.started, t.completed, t.scoreSum, t.scoreCount][column])),
    ],
  );
  const stepRows = [...steps.values()];
  await pool.query(
    `INSERT INTO submission_step_days (form_id, environment, day, step_id, reached, dropped_off)
     SELECT $1, 'live', * FROM unnest($2::text[], $3::text[], $4::int[], $5::int[])`,
    [
      formId,
      stepRows.map((row) => row.day),
      stepRows.map((row) => row.stepId),
      stepRows.map((row) => row.reached),
      stepRows.map((row) => row.droppedOff),
    ],
  );
  const gradeRows = [...grades.values()];
  await pool.query(
    `INSERT INTO submission_grade_days (form_id, environment, day, grade, completed) SELECT $1, 'live', * FROM unnest($2::text[], $3::text[], $4::int[])`,
    [formId, gradeRows.map((row) => row.day), gradeRows.map((row) => row.grade), gradeRows.map((row) => row.completed)],
  );
  const sourceRows = [...sources.values()];
  await pool.query(
    `INSERT INTO submission_source_days (form_id, environment, day, utm_source, started, completed)
     SELECT $1, 'live', * FROM unnest($2::text[], $3::text[], $4::int[], $5::int[])`,
    [
      formId,
      sourceRows.map((row) => row.day),
      sourceRows.map((row) => row.source),
      sourceRows.map((row) => row.started),
      sourceRows.map((row) => row.completed),
    ],
  );
}
