/**
 * `npm run bench:postgres`: the server on PostgreSQL as an operator runs it (`npm start`'s entry in its own
 * process, TLS, full pipeline), with 1 and then 2 worker processes, under autocannon in another process:
 * `POST /v1/submissions` and `GET /v1/forms/{id}`. Not a test: it prints a table and writes
 * dist/bench-postgres.json.
 *
 * BENCH_DATABASE_URL (or DATABASE_URL) names the PostgreSQL server; the bench creates a database of its own on
 * it and drops it at the end. REDIS_URL, when set, puts the rate limits on Redis as in production (under a
 * prefix of the bench's own). BENCH_SECONDS (default 10) is each measurement's duration.
 *
 * Then it loads BENCH_ROWS (default 1,000,000) submissions in one INSERT … SELECT and, through the store, times the
 * first page of GET /v1/submissions against the page after row 900,000 (sorted by score, filtered by one grade,
 * and both), printing each deep page's plan (EXPLAIN ANALYZE) to show the index range it starts from.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
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
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { anaAnswers, anaHidden, demoForm } from '../http/submissions-support.js';

const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!serverUrl) {
  process.stderr.write(
    'Set BENCH_DATABASE_URL (or DATABASE_URL) to a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres\n',
  );
  process.exit(2);
}
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number, decimals = 0) => Math.round(value * 10 ** decimals) / 10 ** decimals;
const run = promisify(execFile);

const databaseName = `ff_bench_${randomBytes(4).toString('hex')}`;
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();
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

async function startServer(workers: number, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (const started = Date.now(); !output.includes('Form-Funnel API listening'); ) {
    if (child.exitCode !== null || Date.now() - started > 180_000) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url: `https://127.0.0.1:${port}` };
}

const stopServer = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

async function autocannon(url: string, key: string, method: 'GET' | 'POST', body: string | undefined, seconds: number) {
  const args = ['-c', '16', '-d', String(seconds), '-j', '-m', method, '-H', `authorization=Bearer ${key}`];
  if (body !== undefined) args.push('-H', 'content-type=application/json', '-b', body);
  const { stdout } = await run(join(root, 'node_modules/.bin/autocannon'), [...args, url], {
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
    requests_per_second: round(result.requests.average),
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
try {
  const store = await createPostgresStore(databaseUrl, { max: 1 });
  const workspace = await bootstrapWorkspace(
    { store, now: () => new Date(), events: integrationEvents(), webhookUrls: dnsWebhookUrlPolicy() },
    { name: 'Bench', plan: 'business' },
  );
  await store.close();
  const key = workspace.live_admin_key;

  const figures: Record<string, { create: Awaited<ReturnType<typeof autocannon>>; get: Awaited<ReturnType<typeof autocannon>> }> = {};
  let formId: string | undefined;
  for (const workers of [1, 2]) {
    log(`Starting the server with WORKERS=${workers} on PostgreSQL...`);
    const server = await startServer(workers, dataDir);
    try {
      if (!formId) {
        const { slug: _slug, ...form } = demoForm();
        const created = await fetchJson(`${server.url}/v1/forms`, key, form);
        formId = String(created.id);
      }
      const submission = JSON.stringify({ form_id: formId, answers: anaAnswers(), hidden: anaHidden() });
      log(`  POST /v1/submissions and GET /v1/forms/{id}, ${SECONDS} s each (16 connections, after a 2 s warm-up)...`);
      await autocannon(`${server.url}/v1/submissions`, key, 'POST', submission, 2);
      const create = await autocannon(`${server.url}/v1/submissions`, key, 'POST', submission, SECONDS);
      await autocannon(`${server.url}/v1/forms/${formId}`, key, 'GET', undefined, 2);
      const get = await autocannon(`${server.url}/v1/forms/${formId}`, key, 'GET', undefined, SECONDS);
      figures[`workers_${workers}`] = { create, get };
    } finally {
      await stopServer(server.child);
    }
  }
  const deepPages = await measureDeepPages(workspace.workspace_id, formId!);
  Object.assign(results, figures, { deep_pages: deepPages, load_average_at_end: loadavg().map((load) => round(load, 2)) });

  const rows: string[][] = [];
  for (const [name, { create, get }] of Object.entries(figures)) {
    const workers = name.replace('workers_', '');
    rows.push([
      `POST /v1/submissions, ${workers} worker(s)`,
      `${create.requests_per_second} req/s`,
      `p50 ${create.p50_ms} ms, p99 ${create.p99_ms} ms, ${create.failed} failed`,
    ]);
    rows.push([
      `GET /v1/forms/{id}, ${workers} worker(s)`,
      `${get.requests_per_second} req/s`,
      `p50 ${get.p50_ms} ms, p99 ${get.p99_ms} ms, ${get.failed} failed`,
    ]);
  }
  for (const page of deepPages) {
    rows.push([`list ${page.name}, first page`, `${page.first_ms} ms`, 'median of 30']);
    rows.push([`list ${page.name}, after row ${page.cursor_row.toLocaleString('en')}`, `${page.deep_ms} ms`, `ratio ${page.ratio}x`]);
  }
  const width = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  log('');
  log(rows.map((row) => row.map((cell, column) => cell.padEnd(width[column]!)).join('  ')).join('\n'));
  const scale = (kind: 'create' | 'get') =>
    round(figures.workers_2![kind].requests_per_second / figures.workers_1![kind].requests_per_second, 2);
  results.two_to_one = { create: scale('create'), get: scale('get') };
  log(
    `\n2 workers / 1 worker: POST ${scale('create')}x, GET ${scale('get')}x on ${cpus().length} cores. Each request is CPU work ` +
      '(TLS, authentication, validation of request and response, JSON) in a worker, and on this machine the same cores also ' +
      'run PostgreSQL, the autocannon process and (with REDIS_URL) Redis: a second worker adds at most the share of a core ' +
      'the others leave idle, so the 2-worker figure is bounded by the cores, not by the store. More cores or more ' +
      'machines behind a load balancer scale it; on 2 cores WORKERS=2 mostly buys resilience (one worker busy or restarting).',
  );
  log(
    `Load average (1, 5, 15 min) at start ${(results.load_average_at_start as number[]).join(', ')}, at end ${(results.load_average_at_end as number[]).join(', ')}`,
  );
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist/bench-postgres.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('Wrote dist/bench-postgres.json');
} finally {
  await onServer(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * A million rows straight into the table (the list needs no aggregates), spread over 30 days with scores 0..99 and
 * grades A (>= 70), B (>= 40) and C, then ANALYZE; each list page is timed through the store as the API calls it.
 */
async function measureDeepPages(workspaceId: string, formId: string) {
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  const store = await createPostgresStore(databaseUrl, { max: 2 });
  try {
    log(`Loading ${rows.toLocaleString('en')} submissions into PostgreSQL...`);
    const started = performance.now();
    await store.pool.query(
      `INSERT INTO submissions (id, workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps, score, grade,
         score_breakdown, scored_at, created_at, updated_at, search_text)
       SELECT 'sub_' || lpad(to_hex(g), 24, '0'), $1, 'live', $2, 1, 'completed', '{}', '{}', '[]', score,
         CASE WHEN score >= 70 THEN 'A' WHEN score >= 40 THEN 'B' ELSE 'C' END, '[]', at, at, at, ''
       FROM generate_series(1, $3::int) g,
         LATERAL (SELECT ((g::bigint * 7919) % 100)::int AS score, now() - make_interval(secs => g * 2.592) AS at) v`,
      [workspaceId, formId, rows],
    );
    await store.pool.query('ANALYZE submissions');
    log(`  loaded in ${round((performance.now() - started) / 1000, 1)} s`);
    const partition = { workspaceId, environment: 'live' as const, attachment: { type: 'workspace' as const } };
    const cases = [
      { name: 'by -score', filter: {}, order: { key: 'score', direction: 'desc' }, where: '', orderBy: 'score DESC, id DESC' },
      {
        name: 'grade=A',
        filter: { grades: ['A'] },
        order: { key: 'created_at', direction: 'desc' },
        where: `AND grade = 'A'`,
        orderBy: 'created_at DESC, id DESC',
      },
      {
        name: 'grade=A by -score',
        filter: { grades: ['A'] },
        order: { key: 'score', direction: 'desc' },
        where: `AND grade = 'A'`,
        orderBy: 'score DESC, id DESC',
      },
    ] as const;
    const figures = [];
    for (const c of cases) {
      const { rows: counted } = await store.pool.query(`SELECT COUNT(*)::int AS n FROM submissions WHERE workspace_id = $1 ${c.where}`, [
        workspaceId,
      ]);
      const position = Math.min(900_000, Math.floor(counted[0].n * 0.9));
      const { rows: at } = await store.pool.query(
        `SELECT id FROM submissions WHERE workspace_id = $1 AND environment = 'live' ${c.where} ORDER BY ${c.orderBy} LIMIT 1 OFFSET $2`,
        [workspaceId, position - 1],
      );
      const cursor = at[0].id as string;
      const page = (startingAfter?: string) =>
        store.submissions.list(partition, c.filter, { limit: 100, startingAfter }, c.order as Parameters<typeof store.submissions.list>[3]);
      const samples = { first: [] as number[], deep: [] as number[] };
      for (let round = -5; round < 30; round++) {
        for (const [name, after] of [
          ['first', undefined],
          ['deep', cursor],
        ] as const) {
          const startedAt = performance.now();
          await page(after);
          if (round >= 0) samples[name].push(performance.now() - startedAt);
        }
      }
      // The plan of the deep page's own query, as the store sends it.
      const query = store.pool.query.bind(store.pool);
      let last: { text: string; values: unknown[] } | undefined;
      store.pool.query = ((text: string, values: unknown[]) => {
        last = { text, values };
        return query(text, values);
      }) as typeof store.pool.query;
      await page(cursor);
      store.pool.query = query;
      const plan = await query(`EXPLAIN (ANALYZE, COSTS OFF) ${last!.text}`, last!.values);
      log(`\nPlan of the page after row ${position.toLocaleString('en')}, ${c.name}:`);
      for (const line of plan.rows) log(`  ${line['QUERY PLAN']}`);
      const median = (values: number[]) => round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!, 2);
      figures.push({
        name: c.name,
        cursor_row: position,
        first_ms: median(samples.first),
        deep_ms: median(samples.deep),
        ratio: round(median(samples.deep) / median(samples.first), 2),
      });
    }
    return figures;
  } finally {
    await store.close();
  }
}

/** One request to the bench's own server, whose certificate is self-signed. */
function fetchJson(url: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: 'POST', rejectUnauthorized: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 201) reject(new Error(`${url}: ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text) as Record<string, unknown>);
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
