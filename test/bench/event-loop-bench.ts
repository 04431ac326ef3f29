/**
 * `npm run bench:event-loop` (part of `npm run bench`): how long one request at the documented maxima can hold
 * the server's event loop, which every other tenant's request waits behind. Not a test; it prints a table and
 * writes dist/bench-event-loop.json.
 *
 * The API runs in this process over TLS; the load comes from autocannon in a child process (load-client.mjs), so the only work
 * on this event loop is the server's. For each request kind (create, read, read a version, list 100 versions,
 * update, submit) with a form definition of the maximum size, `monitorEventLoopDelay` records the longest
 * delay while the requests run. The target for the worst of them is 50 ms.
 *
 * It also measures one `GET /v1/forms/{id}/versions?limit=100` of a form with 100 maximum-size versions: the
 * bytes of the response and the time to receive it. BENCH_SECONDS (default 5) sets each load phase's length.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import selfsigned from 'selfsigned';
import { MAX_DEFINITION_BYTES } from '../../src/domain/forms/definition-size.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { messageClassesOf } from '../../src/http/message-classes.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { maxSizeFormBody, maxSizeFormParts } from '../support/max-size-form.js';
import { benchApp } from './bench-app.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TARGET_MS = 50;
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number, decimals = 1) => Math.round(value * 10 ** decimals) / 10 ** decimals;

const dir = mkdtempSync(join(tmpdir(), 'form-funnel-loop-bench-'));
const store = createSqliteStore(join(dir, 'bench.db'));
const built = await benchApp({ store, validateResponses: true });
const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 });
const server = https.createServer({ key: pems.private, cert: pems.cert, ...messageClassesOf(built.app) }, built.app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
const workspace = await bootstrapWorkspace(built.services, { name: 'Bench', plan: 'business' });
const adminKey = workspace.live_admin_key;
const agent = new https.Agent({ keepAlive: true, ca: pems.cert, maxSockets: 1 });

/** One request from this process; the response is counted, not parsed, unless asked for. */
function call(method: string, path: string, body?: string): Promise<{ status: number; bytes: number; ms: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${url}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${adminKey}`,
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const all = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, bytes: all.length, ms: performance.now() - started, text: all.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function expectStatus(status: number, method: string, path: string, body?: string) {
  const res = await call(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 500)}`);
  return res;
}

const run = promisify(execFile);
/** Load from autocannon in a child process (test/bench/load-client.mjs). */
async function autocannon(method: string, path: string, bodyFile?: string) {
  const args = [join(root, 'test/bench/load-client.mjs'), `${url}${path}`, method, `Bearer ${adminKey}`, String(SECONDS)];
  if (bodyFile !== undefined) args.push(bodyFile);
  const { stdout } = await run(process.execPath, args, {
    env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as {
    requests: { total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    statusCodeStats: Record<string, { count: number }>;
  };
  return {
    requests: result.requests.total,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    failed: result.non2xx + result.errors,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, stats]) => [status, stats.count])),
  };
}

// ---- a form at the maximum definition size, with 100 versions ----
const parts = maxSizeFormParts(MAX_DEFINITION_BYTES);
const body = (name: string) => JSON.stringify(maxSizeFormBody(parts, name));
const created = JSON.parse((await expectStatus(201, 'POST', '/v1/forms', body('Largest form'))).text) as { id: string };
log(`Form ${created.id}: ${parts.bytes.toLocaleString('en')} definition bytes (maximum ${MAX_DEFINITION_BYTES.toLocaleString('en')})`);
for (let version = 2; version <= 100; version++)
  await expectStatus(200, 'PATCH', `/v1/forms/${created.id}`, JSON.stringify({ name: `v${version}` }));
const versionsPath = `/v1/forms/${created.id}/versions?limit=100`;
await expectStatus(200, 'GET', versionsPath);
const listSamples = [];
for (let sample = 0; sample < 5; sample++) listSamples.push(await expectStatus(200, 'GET', versionsPath));
const versionList = { bytes: listSamples[0]!.bytes, ms: round(Math.min(...listSamples.map((sample) => sample.ms))) };
log(`GET ${versionsPath}: ${versionList.bytes.toLocaleString('en')} bytes in ${versionList.ms} ms (best of 5)`);

// ---- the load phases, each with the event-loop delay histogram reset ----
const files = {
  create: join(dir, 'create.json'),
  update: join(dir, 'update.json'),
  submit: join(dir, 'submit.json'),
};
writeFileSync(files.create, body('Load form [<n>]'));
writeFileSync(files.update, body('Updated [<n>]'));
writeFileSync(files.submit, JSON.stringify({ form_id: created.id, answers: parts.answers }));
await expectStatus(201, 'POST', '/v1/submissions', JSON.stringify({ form_id: created.id, answers: parts.answers }));

const phases: Array<[string, string, string, string?]> = [
  ['POST /v1/forms (max size)', 'POST', '/v1/forms', files.create],
  ['GET /v1/forms/{id}', 'GET', `/v1/forms/${created.id}`],
  ['GET /v1/forms/{id}/versions/{version}', 'GET', `/v1/forms/${created.id}/versions/100`],
  ['GET /v1/forms/{id}/versions?limit=100', 'GET', versionsPath],
  ['PATCH /v1/forms/{id} (max size)', 'PATCH', `/v1/forms/${created.id}`, files.update],
  ['POST /v1/submissions (every field)', 'POST', '/v1/submissions', files.submit],
];
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
const figures: Record<string, { max_block_ms: number; p99_block_ms: number } & Awaited<ReturnType<typeof autocannon>>> = {};
for (const [name, method, path, file] of phases) {
  log(`Load: ${name} for ${SECONDS} s...`);
  histogram.reset();
  const load = await autocannon(method, path, file);
  figures[name] = { max_block_ms: round(histogram.max / 1e6), p99_block_ms: round(histogram.percentile(99) / 1e6), ...load };
}
histogram.disable();
const worst = Math.max(...Object.values(figures).map((figure) => figure.max_block_ms));

const rows: Array<[string, string, string]> = [
  ['versions?limit=100, 100 max-size versions', `${versionList.bytes.toLocaleString('en')} bytes`, `${versionList.ms} ms`],
  ...Object.entries(figures).map(([name, figure]): [string, string, string] => [
    name,
    `worst block ${figure.max_block_ms} ms`,
    `p99 block ${figure.p99_block_ms} ms, ${figure.requests} requests, p50 ${figure.p50_ms} ms, statuses ` +
      `${JSON.stringify(figure.statuses)}`,
  ]),
  ['worst event-loop block', `${worst} ms`, `target < ${TARGET_MS} ms`],
];
const width = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
log('');
log(rows.map((row) => row.map((cell, column) => cell.padEnd(width[column]!)).join('  ')).join('\n'));
const results = {
  node: process.version,
  cpus: cpus().length,
  load_average: loadavg().map((load) => round(load, 2)),
  max_definition_bytes: MAX_DEFINITION_BYTES,
  definition_bytes: parts.bytes,
  version_list: versionList,
  phases: figures,
  worst_block_ms: worst,
  target_ms: TARGET_MS,
};
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/bench-event-loop.json'), `${JSON.stringify(results, null, 2)}\n`);
log('Wrote dist/bench-event-loop.json');

agent.destroy();
server.close();
server.closeAllConnections();
await built.flushLastUsed();
await store.close();
rmSync(dir, { recursive: true, force: true });
