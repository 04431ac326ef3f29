/**
 * `npm run bench`, part 1: what the validated pipeline costs. Not a test (nothing here passes or fails); it prints
 * a table and writes dist/bench-throughput.json.
 *
 * Each scenario runs the reference server as `npm start` builds it (TLS, request log on, authentication, rate
 * limits with high ceilings, request and response validation) next to a plain Express app over TLS that answers
 * the same request with the least work possible: the same JSON from memory for the reads, the same INSERT for
 * the create. autocannon runs in a child process, so the load generator never shares the server's event loop.
 * The two variants alternate, round after round, so a change in machine load hits both; the ratio of the medians
 * is the figure to read, the spread of the rounds' own ratios says how far it can move on this machine (on 2 shared
 * cores, about ±0.05), and the load average says how quiet the machine was.
 *
 * Then a CPU profile of each full-stack scenario, taken in-process with the inspector, splits the server's busy
 * time into pipeline stages by the module each sampled function belongs to: microseconds per request per stage.
 *
 * BENCH_SECONDS (default 10) is the length of one measured run; BENCH_ROUNDS (default 3) the number of rounds;
 * BENCH_ONLY runs the scenarios whose name contains it; BENCH_DEBUG prints the functions that cost most;
 * BENCH_PROFILE_DIR writes each scenario's CPU profile there; with BENCH_PROFILE_PLAIN also plain Express's (plain-*.cpuprofile),
 * to tell the full stack's own work from what any Express server over TLS pays (the socket writes above all);
 * BENCH_PLAIN_CLASSES=1 builds plain Express's requests and responses as the full stack's listener does.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { Session } from 'node:inspector/promises';
import type { AddressInfo, Server } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import selfsigned from 'selfsigned';
import { parse } from 'yaml';
import { compiled } from './compiled.js';
import { median } from './median.js';

// The server as `npm start` runs it: compiled (./compiled.ts).
const { loadConfig } = await compiled<typeof import('../../src/config.js')>('config.js');
const { bootstrapWorkspace } = await compiled<typeof import('../../src/domain/workspaces/bootstrap.js')>('domain/workspaces/bootstrap.js');
const { messageClassesOf } = await compiled<typeof import('../../src/http/message-classes.js')>('http/message-classes.js');
const { newId } = await compiled<typeof import('../../src/ids.js')>('ids.js');
const { createHttpsListener } = await compiled<typeof import('../../src/listeners.js')>('listeners.js');
const { createLogger } = await compiled<typeof import('../../src/logger.js')>('logger.js');
const { createSqliteStore } = await compiled<typeof import('../../src/store/sqlite/index.js')>('store/sqlite/index.js');
const { buildApp } = await compiled<typeof import('../../src/http/app.js')>('http/app.js');
const { loadOrBundleContract } = await compiled<typeof import('../../src/http/contract-document.js')>('http/contract-document.js');
const { highLimits } = await import('./bench-app.js');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number, decimals = 2) => Math.round(value * 10 ** decimals) / 10 ** decimals;
const example = (name: string) =>
  parse(readFileSync(join(root, `openapi/components/examples/${name}.yaml`), 'utf8')).value as Record<string, unknown>;

// ---- the server as npm start builds it, on a temporary database ----
const dir = mkdtempSync(join(tmpdir(), 'form-funnel-throughput-'));
const store = createSqliteStore(join(dir, 'bench.db'));
// The request log is on and built as the server builds it; it goes to a file so the figures do not depend on a terminal.
const logger = createLogger({ logLevel: 'info' }, join(dir, 'requests.log'));
const built = buildApp({ logger, store, validateResponses: true, contract: await loadOrBundleContract(), rateLimits: highLimits });
const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 });
const tls = { key: pems.private, cert: pems.cert };
const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
};
// The full stack's listener is the one `npm start` makes, with its default connection limits.
const api = await listen(createHttpsListener(tls, built.app, loadConfig({}).connectionLimits).server);
const workspace = await bootstrapWorkspace(built.services, { name: 'Bench', plan: 'business' });
const authorization = `Bearer ${workspace.live_admin_key}`;
const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 1 });

function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { authorization, ...(payload ? { 'content-type': 'application/json' } : {}) };
    const req = https.request(`${api.url}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
async function expectStatus(status: number, method: string, path: string, body?: unknown) {
  const res = await call(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.text;
}

const { slug: _slug, ...formBody } = example('FormCreateRequest');
const form = JSON.parse(await expectStatus(201, 'POST', '/v1/forms', formBody)) as { id: string; version: number };
const submission = example('SubmissionCreateRequest');
const submissionBody = JSON.stringify({ ...submission, form_id: form.id });
for (let index = 0; index < 150; index++) await expectStatus(201, 'POST', '/v1/submissions', JSON.parse(submissionBody));

// ---- the baseline: plain Express over TLS, the least work that gives the same answer ----
const formJson = await expectStatus(200, 'GET', `/v1/forms/${form.id}`);
const listJson = await expectStatus(200, 'GET', '/v1/submissions?limit=100');
const createdJson = await expectStatus(201, 'POST', '/v1/submissions', JSON.parse(submissionBody));
const created = JSON.parse(createdJson) as Record<string, unknown>;
const insertColumns = [
  'id',
  'workspace_id',
  'environment',
  'form_id',
  'form_version',
  'status',
  'answers',
  'hidden',
  'visited_steps',
  'score',
  'grade',
  'score_breakdown',
  'scored_at',
  'created_at',
  'updated_at',
];
const insert = store.db.prepare(
  `INSERT INTO submissions (${insertColumns.join(', ')}) VALUES (${insertColumns.map(() => '?').join(', ')})`,
);
const plainApp = express();
plainApp.disable('x-powered-by');
plainApp.use(express.json());
plainApp.get('/v1/forms/:id', (_req, res) => void res.type('application/json').send(formJson));
plainApp.get('/v1/submissions', (_req, res) => void res.type('application/json').send(listJson));
plainApp.post('/v1/submissions', (req, res) => {
  const at = new Date().toISOString();
  // A real id: these rows share the table with the full stack's, whose list must stay valid for the profile.
  const id = newId('sub');
  insert.run(
    id,
    workspace.workspace_id,
    'live',
    req.body.form_id,
    form.version,
    created.status,
    JSON.stringify(req.body.answers),
    JSON.stringify(req.body.hidden ?? {}),
    JSON.stringify(created.visited_steps),
    created.score,
    created.grade,
    JSON.stringify(created.score_breakdown),
    at,
    at,
    at,
  );
  res.status(201).json({ ...created, id, created_at: at, updated_at: at, scored_at: at });
});
// Plain Express as anyone would run it; BENCH_PLAIN_CLASSES=1 gives it the full stack's request and response
// classes too (src/http/message-classes.ts), to tell what they save any Express app from the full stack's own work.
const plain = await listen(
  https.createServer({ ...tls, ...(process.env.BENCH_PLAIN_CLASSES === '1' ? messageClassesOf(plainApp) : {}) }, plainApp),
);

// ---- autocannon in a child process ----
const run = promisify(execFile);
interface Run {
  requests_per_second: number;
  /** This process's CPU time (user + system) per request: both servers live here and only one is loaded at a time. */
  cpu_us_per_request: number;
  p50_ms: number;
  p99_ms: number;
  failed: number;
}
async function autocannon(url: string, scenario: Scenario, seconds: number): Promise<Run> {
  const args = ['-c', String(CONNECTIONS), '-d', String(seconds), '-j', '-m', scenario.method, '-H', `authorization=${authorization}`];
  if (scenario.body !== undefined) args.push('-H', 'content-type=application/json', '-b', scenario.body);
  const cpuBefore = process.cpuUsage();
  const { stdout } = await run(join(root, 'node_modules/.bin/autocannon'), [...args, `${url}${scenario.path}`], {
    env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  const cpu = process.cpuUsage(cpuBefore);
  return {
    requests_per_second: round(result.requests.average, 0),
    cpu_us_per_request: round((cpu.user + cpu.system) / Math.max(1, result.requests.total), 1),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    failed: result.non2xx + result.errors,
  };
}

// ---- CPU profile: server busy time per pipeline stage ----
/** Stages by the module a sampled function lives in; the first match wins. */
const stages: Array<[string, (url: string, name: string) => boolean]> = [
  ['validator (express-openapi-validator)', (url) => url.includes('/express-openapi-validator/')],
  // ajv's compiled validators are generated code (no file) named validate<N>.
  [
    'ajv (schema checks)',
    (url, name) => url.includes('/ajv/') || url.includes('/ajv-formats/') || (url === '' && /^validate\d*$/.test(name)),
  ],
  ['Express and router', (url) => /\/node_modules\/(express|router|body-parser|raw-body|qs|send|finalhandler|path-to-regexp)\//.test(url)],
  ['request log (pino)', (url) => /\/node_modules\/(pino|sonic-boom|thread-stream|fast-redact)/.test(url)],
  ['rate limits', (url) => url.includes('/rate-limiter-flexible/') || /\/(src|build)\/http\/rate-limits\.[jt]s$/.test(url)],
  // better-sqlite3's statement methods are native (no file).
  [
    'store (SQLite)',
    (url, name) =>
      /\/(src|build)\/store\//.test(url) || url.includes('/better-sqlite3/') || (url === '' && /^(all|get|run|iterate)$/.test(name)),
  ],
  ['domain (logic, scoring, keys)', (url) => /\/(src|build)\/domain\//.test(url)],
  ['pipeline and handlers (src/http)', (url) => /\/(src|build)\/http\//.test(url)],
  // Encryption happens inside the native socket writes of the TLS wrap.
  [
    'TLS, crypto and socket writes',
    (url, name) =>
      /^node:(_?tls|crypto|internal\/crypto)/.test(url) ||
      (url === '' && /^(writev|writeString|writeUtf8String|writeLatin1String|writeBuffer|Hash|digest|update)$/.test(name)),
  ],
  ['Node http', (url) => url.startsWith('node:_http') || url.startsWith('node:http') || url.startsWith('node:net')],
  ['garbage collection', (_url, name) => name === '(garbage collector)'],
];
interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  hitCount?: number;
}
async function profileStages(scenario: Scenario, seconds: number, url = api.url) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const before = Date.now();
  const load = await autocannon(url, scenario, seconds);
  if (load.failed > 0) throw new Error(`${scenario.name}: ${load.failed} requests failed while profiling`);
  const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples: number[] } };
  const elapsedMs = Date.now() - before;
  session.disconnect();
  if (process.env.BENCH_PROFILE_DIR) {
    mkdirSync(process.env.BENCH_PROFILE_DIR, { recursive: true });
    const file = join(
      process.env.BENCH_PROFILE_DIR,
      `${url === api.url ? '' : 'plain-'}${scenario.name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`,
    );
    writeFileSync(file, JSON.stringify(profile));
    log(`  wrote ${file} (open it in Chrome DevTools' Performance panel)`);
  }
  const requests = load.requests_per_second * (elapsedMs / 1000);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  const others = new Map<string, number>();
  const sampleUs = (elapsedMs * 1000) / profile.samples.length;
  for (const id of profile.samples) {
    const frame = byId.get(id)!.callFrame;
    const url = frame.url.replace(/^file:\/\//, '');
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') continue;
    const stage = stages.find(([, matches]) => matches(url, frame.functionName))?.[0] ?? 'other (V8 builtins, JSON, Node internals)';
    if (process.env.BENCH_DEBUG) {
      const name = `${stage.split(' ')[0]}: ${frame.functionName} ${url.replace(root, '')}`;
      others.set(name, (others.get(name) ?? 0) + 1);
    }
    totals.set(stage, (totals.get(stage) ?? 0) + sampleUs);
  }
  if (process.env.BENCH_DEBUG)
    log(
      [...others]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 40)
        .map(([name, samples]) => `    ${round((samples * sampleUs) / requests, 1)} us ${name}`)
        .join('\n'),
    );
  const perRequest = [...totals].map(([stage, us]) => ({ stage, us_per_request: round(us / requests, 1) }));
  perRequest.sort((a, b) => b.us_per_request - a.us_per_request);
  return {
    requests_per_second: load.requests_per_second,
    busy_us_per_request: round(sum(perRequest.map((s) => s.us_per_request)), 1),
    perRequest,
  };
}
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

// ---- the run ----
interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  target: number;
}
const scenarios: Scenario[] = [
  { name: 'GET /v1/forms/{id}', method: 'GET', path: `/v1/forms/${form.id}`, target: 0.6 },
  { name: 'GET /v1/submissions?limit=100', method: 'GET', path: '/v1/submissions?limit=100', target: 0.6 },
  { name: 'POST /v1/submissions', method: 'POST', path: '/v1/submissions', body: submissionBody, target: 0.7 },
].filter((scenario) => !process.env.BENCH_ONLY || scenario.name.includes(process.env.BENCH_ONLY)) as Scenario[];

const results: Record<string, unknown> = {
  node: process.version,
  cpus: cpus().length,
  seconds_per_run: SECONDS,
  rounds: ROUNDS,
  connections: CONNECTIONS,
  started_at: new Date().toISOString(),
  load_average_at_start: loadavg().map((load) => round(load)),
};
log(`Throughput: full stack against plain Express over TLS, ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections`);
const figures: Record<string, unknown> = {};
// The CPU ratio (plain Express's CPU per request over the full stack's) is what the throughput ratio tends to
// on a quiet machine, where the server is CPU-bound; it moves less than throughput when others load the cores.
const table: string[][] = [['scenario', 'full stack', 'plain Express', 'ratio', 'rounds', 'CPU us/request', 'CPU ratio', 'target']];
for (const scenario of scenarios) {
  await autocannon(api.url, scenario, 2);
  await autocannon(plain.url, scenario, 2);
  const full: Run[] = [];
  const base: Run[] = [];
  for (let index = 0; index < ROUNDS; index++) {
    full.push(await autocannon(api.url, scenario, SECONDS));
    base.push(await autocannon(plain.url, scenario, SECONDS));
  }
  const fullRps = median(full.map((r) => r.requests_per_second));
  const baseRps = median(base.map((r) => r.requests_per_second));
  const failed = sum(full.map((r) => r.failed)) + sum(base.map((r) => r.failed));
  if (failed > 0) throw new Error(`${scenario.name}: ${failed} requests failed`);
  const ratio = round(fullRps / baseRps, 2);
  // Each round's own ratio (its full-stack run against the plain run next to it): how far one figure can move on
  // this machine, so a difference smaller than this spread is not read as a change.
  const roundRatios = full.map((run, index) => round(run.requests_per_second / base[index]!.requests_per_second, 2));
  const spread = `${Math.min(...roundRatios)}-${Math.max(...roundRatios)}x`;
  const fullCpu = median(full.map((r) => r.cpu_us_per_request));
  const baseCpu = median(base.map((r) => r.cpu_us_per_request));
  const cpuRatio = round(baseCpu / fullCpu, 2);
  figures[scenario.name] = {
    full_stack: full,
    plain_express: base,
    full_median_rps: fullRps,
    plain_median_rps: baseRps,
    ratio,
    round_ratios: roundRatios,
    full_median_cpu_us_per_request: fullCpu,
    plain_median_cpu_us_per_request: baseCpu,
    cpu_ratio: cpuRatio,
    target: scenario.target,
  };
  table.push([
    scenario.name,
    `${fullRps.toLocaleString('en')} req/s`,
    `${baseRps.toLocaleString('en')} req/s`,
    `${ratio}x`,
    spread,
    `${fullCpu} vs ${baseCpu}`,
    `${cpuRatio}x`,
    `>= ${scenario.target}x`,
  ]);
  log(
    `  ${scenario.name}: ${fullRps} vs ${baseRps} req/s (${ratio}x, rounds ${spread}); CPU ${fullCpu} vs ${baseCpu} us/request ` +
      `(${cpuRatio}x)`,
  );
}

log('Profiling the full stack (microseconds of server CPU per request, by stage)...');
const profiles: Record<string, Awaited<ReturnType<typeof profileStages>>> = {};
for (const scenario of scenarios) profiles[scenario.name] = await profileStages(scenario, Math.max(3, Math.round(SECONDS / 2)));
if (process.env.BENCH_PROFILE_PLAIN && process.env.BENCH_PROFILE_DIR)
  for (const scenario of scenarios) await profileStages(scenario, Math.max(3, Math.round(SECONDS / 2)), plain.url);
Object.assign(results, {
  figures,
  stages: profiles,
  finished_at: new Date().toISOString(),
  load_average_at_end: loadavg().map((l) => round(l)),
});

const printTable = (rows: string[][]) => {
  const width = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  log(rows.map((row) => row.map((cell, column) => cell.padEnd(width[column]!)).join('  ')).join('\n'));
};
log('');
printTable(table);
log('');
const stageNames = [...new Set(Object.values(profiles).flatMap((p) => p.perRequest.map((s) => s.stage)))];
printTable([
  ['stage (us per request)', ...scenarios.map((s) => s.name)],
  ...stageNames.map((stage) => [
    stage,
    ...scenarios.map((s) => String(profiles[s.name]!.perRequest.find((entry) => entry.stage === stage)?.us_per_request ?? 0)),
  ]),
  ['total busy', ...scenarios.map((s) => String(profiles[s.name]!.busy_us_per_request))],
]);
log(
  `\nLoad average (1, 5, 15 min) at start ${(results.load_average_at_start as number[]).join(', ')}, at end ${loadavg()
    .map((load) => round(load))
    .join(', ')} on ${cpus().length} cores`,
);
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/bench-throughput.json'), `${JSON.stringify(results, null, 2)}\n`);
log('Wrote dist/bench-throughput.json');

agent.destroy();
api.server.close();
plain.server.close();
await built.flushLastUsed();
await store.close();
logger.flush();
rmSync(dir, { recursive: true, force: true });
