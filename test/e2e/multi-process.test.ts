/**
 * The server scaled out as an operator runs it: `WORKERS=2` (two processes on one port, node:cluster) on a fresh
 * PostgreSQL database and a fresh Redis key prefix. The cluster hands each new connection to the next worker,
 * so the test keeps several connections open and learns which process holds each from the request log (every
 * line carries the process id and the request id the response also carries): nothing is added to the API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsWebhookUrlPolicy } from '../../src/adapters/dns-resolver.js';
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { type BootstrappedWorkspace, bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { defaultRateLimits } from '../../src/http/documented-limits.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { startReceiver } from '../http/integrations-support.js';
import { anaAnswers, demoForm } from '../http/submissions-support.js';
import { createTestDatabase } from '../support/postgres.js';
import { freePort } from './support/server-process.js';

const root = new URL('../../', import.meta.url).pathname;
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisPrefix = `ff-e2e-${randomBytes(6).toString('hex')}`;
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  pid: number;
}

/** One kept-alive connection to the cluster, and so to one of its workers. */
interface Connection {
  agent: https.Agent;
  pid: number;
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let dataDir: string;
let server: ChildProcess;
let output = '';
let port: number;
let ca: string;
let workspace: BootstrappedWorkspace;
/** Open connections grouped by the worker that holds them: `[first worker's, second worker's]`. */
let byWorker: Connection[][];

/** The process that answered the request with this id, read from its request log line. */
async function pidOf(requestId: string): Promise<number> {
  for (const started = Date.now(); Date.now() - started < 5000; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const line = output.split('\n').find((entry) => entry.includes('"msg":"request"') && entry.includes(`"request_id":"${requestId}"`));
    if (line) return (JSON.parse(line) as { pid: number }).pid;
  }
  throw new Error(`no request log line for ${requestId}`);
}

function send(
  agent: https.Agent,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Omit<Answer, 'pid'>> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  if (payload) headers['Content-Type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = https.request({ host: '127.0.0.1', port, path, method, headers, agent, ca, servername: 'localhost' }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        });
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** The `index`th open connection held by worker 0 or 1 (the workers may hold different numbers of them). */
const on = (worker: 0 | 1, index: number): Connection => byWorker[worker]![index % byWorker[worker]!.length]!;

/** A request on one connection, with the process that answered it. */
async function call(connection: Connection, method: string, path: string, options: Parameters<typeof send>[3] = {}): Promise<Answer> {
  const answer = await send(connection.agent, method, path, { key: workspace.live_admin_key, ...options });
  const pid = await pidOf(String(answer.headers['x-request-id']));
  // A test that means one worker must have reached it: another answering means the connection was replaced.
  if (pid !== connection.pid)
    throw new Error(`a request meant for worker ${connection.pid} was answered by ${pid}: its connection was replaced`);
  return { ...answer, pid };
}

/** An answer read off a connection carrying pipelined requests. */
interface PipelinedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * A raw TLS connection to the cluster that sends many requests at once (HTTP/1.1 pipelining) and reads their
 * answers in order: the cheapest way for one client process to put a burst in front of a worker.
 */
async function openPipe(): Promise<{ pid: number; exchange(requests: string[]): Promise<PipelinedAnswer[]>; close(): void }> {
  const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
    const opened = tls.connect({ port, host: '127.0.0.1', servername: 'localhost', ca }, () => resolve(opened));
    opened.on('error', reject);
  });
  let buffered = Buffer.alloc(0);
  let waiting:
    | { count: number; answers: PipelinedAnswer[]; resolve(answers: PipelinedAnswer[]): void; reject(error: Error): void }
    | undefined;
  const parse = () => {
    while (waiting) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const length = Number(headers['content-length']);
      if (!Number.isInteger(length)) throw new Error(`an answer without Content-Length: ${statusLine}`);
      if (buffered.length < end + 4 + length) return;
      const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
      buffered = buffered.subarray(end + 4 + length);
      waiting.answers.push({
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: body ? (JSON.parse(body) as Record<string, unknown>) : {},
      });
      if (waiting.answers.length === waiting.count) {
        const done = waiting;
        waiting = undefined;
        done.resolve(done.answers);
      }
    }
  };
  // The server closes a connection left idle (KEEP_ALIVE_TIMEOUT_MS): answers still awaited would never come.
  socket.on('close', () =>
    waiting?.reject(new Error(`the connection closed with ${waiting.count - waiting.answers.length} answers awaited`)),
  );
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    parse();
  });
  const exchange = (requests: string[]) =>
    new Promise<PipelinedAnswer[]>((resolve, reject) => {
      waiting = { count: requests.length, answers: [], resolve, reject };
      socket.write(requests.join(''));
    });
  const [probe] = await exchange(['GET /connection-probe HTTP/1.1\r\nHost: localhost\r\n\r\n']);
  return { pid: await pidOf(probe!.headers['x-request-id']!), exchange, close: () => socket.destroy() };
}

beforeAll(async () => {
  [database, receiver] = await Promise.all([createTestDatabase(), startReceiver([200], { delayMs: 50 })]);
  dataDir = mkdtempSync(join(tmpdir(), 'form-funnel-cluster-'));
  writeFileSync(join(dataDir, 'receiver-ca.pem'), receiver.cert);
  port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    WORKERS: '2',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    // The tests pin their requests to a worker by the kept-alive connection they use (below). The default 5 s would
    // close a connection left idle between tests: its agent then opens a new one, which the primary may hand to the
    // other worker, and a request written as the server closes the old one fails with ECONNRESET.
    KEEP_ALIVE_TIMEOUT_MS: String(600_000),
    // Deliveries go to the local receiver, whose certificate the workers trust.
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    NODE_EXTRA_CA_CERTS: join(dataDir, 'receiver-ca.pem'),
  };
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  while (!output.includes('Form-Funnel API listening')) {
    if (server.exitCode !== null || Date.now() - started > 110_000) throw new Error(`the cluster did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  ca = readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8');

  const store = await createPostgresStore(database.url, { max: 1 });
  try {
    workspace = await bootstrapWorkspace(
      { store, now: () => new Date(), events: integrationEvents(), webhookUrls: dnsWebhookUrlPolicy() },
      { name: 'Acme', plan: 'business', adminEmail: 'owner@acme.test' },
    );
  } finally {
    await store.close();
  }

  // Connections opened one after another alternate between the workers; an unknown path answers 404 without
  // spending any budget, and its log line tells which worker holds the connection.
  const connections: Connection[] = [];
  for (let index = 0; index < 16; index++) {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const probe = await send(agent, 'GET', '/connection-probe');
    connections.push({ agent, pid: await pidOf(String(probe.headers['x-request-id'])) });
  }
  const pids = [...new Set(connections.map((connection) => connection.pid))];
  byWorker = pids.map((pid) => connections.filter((connection) => connection.pid === pid));
}, 180_000);

afterAll(async () => {
  for (const connection of byWorker?.flat() ?? []) connection.agent.destroy();
  if (server && server.exitCode === null) server.kill('SIGKILL');
  await receiver?.close();
  await database?.drop();
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${redisPrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('two worker processes on one port, PostgreSQL and Redis', () => {
  it('when connections are opened, then both workers answer on the one port', () => {
    expect(output).toContain(`https://localhost:${port}/v1 (2 worker processes)`);
    expect(byWorker).toHaveLength(2);
    expect(Math.min(...byWorker.map((connections) => connections.length))).toBeGreaterThanOrEqual(2);
  });

  it("when one key's burst is spread over both workers, then they let its documented 100 per second through in total (within 5 %), not 100 each", async () => {
    const limit = defaultRateLimits.perKeyPerSecond;
    // 1.6 times the limit, half on each worker: counted per process, every request would be let through.
    const burst = (8 * limit) / 5;
    const readKey = async (name: string) => {
      const created = await call(on(0, 0), 'POST', '/v1/api_keys', { body: { name, environment: 'live', scope: 'read' } });
      expect(created.status).toBe(201);
      return String(created.body.secret);
    };
    // Two pipelined connections to each worker (the cluster hands connections out in turn), each sent its
    // quarter of the burst in one write.
    const pipes: Array<Awaited<ReturnType<typeof openPipe>>> = [];
    const lanesOf = (pid: number) => pipes.filter((pipe) => pipe.pid === pid).slice(0, 2);
    for (let opened = 0; opened < 16 && new Set(pipes.map((pipe) => pipe.pid)).size < 2; opened++) pipes.push(await openPipe());
    const pids = [...new Set(pipes.map((pipe) => pipe.pid))];
    expect(pids).toHaveLength(2);
    for (let opened = 0; opened < 16 && pids.some((pid) => lanesOf(pid).length < 2); opened++) pipes.push(await openPipe());
    const lanes = pids.flatMap(lanesOf);
    expect(lanes).toHaveLength(4);
    const spread = async (secret: string) => {
      const request = `GET /v1/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\n\r\n`;
      const answers = await Promise.all(lanes.map((lane) => lane.exchange(Array.from({ length: burst / lanes.length }, () => request))));
      return answers.flat();
    };
    // A rehearsal with another key, not judged: each worker builds an operation's checks on its first request to
    // it, and the first 429s take the slow path once.
    await spread(await readKey('rehearsal'));
    // The key's window opens with its first request and lasts a second. A burst answered in full within a
    // second of sending its first request was counted in that one window, so its 200s are exactly what one
    // window let through. A machine too busy to answer the burst within a second gets a new key (a window of
    // its own) and another try, up to five; a burst that took longer proves nothing either way.
    const tries: Array<{ ms: number; accepted: number; refused: number }> = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const secret = await readKey(`burst ${attempt}`);
      const started = performance.now();
      const answers = await spread(secret);
      const ms = Math.round(performance.now() - started);
      expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 429).map((answer) => answer.body)).toEqual([]);
      const accepted = answers.filter((answer) => answer.status === 200);
      tries.push({ ms, accepted: accepted.length, refused: burst - accepted.length });
      if (ms >= 1000) continue;

      expect(accepted.length, JSON.stringify(tries)).toBeGreaterThanOrEqual(limit * 0.95);
      expect(accepted.length, JSON.stringify(tries)).toBeLessThanOrEqual(limit * 1.05);
      for (const refused of answers.filter((answer) => answer.status === 429)) {
        expect(refused.headers['x-ratelimit-limit']).toBe(String(limit));
        expect(refused.headers['x-ratelimit-remaining']).toBe('0');
        expect(refused.body).toMatchObject({ code: 'rate_limited' });
      }
      // Both workers let requests through: the budget was spent from both sides.
      const acceptedBy = await Promise.all(accepted.map((answer) => pidOf(String(answer.headers['x-request-id']))));
      expect(new Set(acceptedBy).size).toBe(2);
      for (const pipe of pipes) pipe.close();
      return;
    }
    for (const pipe of pipes) pipe.close();
    throw new Error(`no burst of ${burst} requests was answered within one second: ${JSON.stringify(tries)}`);
  });

  it('when an Idempotency-Key is retried on the other worker, then it replays the first answer and creates nothing twice', async () => {
    const headers = { 'Idempotency-Key': `cluster-${randomBytes(8).toString('hex')}` };
    const original = await call(on(0, 1), 'POST', '/v1/forms', { body: { name: 'Made once' }, headers });
    const retried = await call(on(1, 1), 'POST', '/v1/forms', { body: { name: 'Made once' }, headers });
    expect(retried.pid).not.toBe(original.pid);
    expect(original.status).toBe(201);
    expect(original.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.headers.location).toBe(original.headers.location);
    expect({ ...retried.body, request_id: null }).toEqual({ ...original.body, request_id: null });
    const listed = await call(on(1, 2), 'GET', '/v1/forms?limit=100');
    expect((listed.body.data as Array<{ name: string }>).filter((form) => form.name === 'Made once')).toHaveLength(1);
  });

  it('when a key is revoked through one worker, then the other refuses it within the second the scaling page promises', async () => {
    const created = await call(on(0, 2), 'POST', '/v1/api_keys', { body: { name: 'revoked', environment: 'live', scope: 'read' } });
    const secret = String(created.body.secret);
    const before = await call(on(1, 3), 'GET', '/v1/me', { key: secret });
    expect(before.status).toBe(200);
    const revoked = await call(on(0, 3), 'DELETE', `/v1/api_keys/${String(created.body.id)}`);
    expect(revoked.status).toBe(200);
    // The other process hears of the revocation by NOTIFY, after the commit the DELETE answered: usually before the
    // next request, bounded by the cache's 600 ms (docs/operating/scaling.md). Asked until refused, for at most 1 s.
    const revokedAt = Date.now();
    let after = await call(on(1, 3), 'GET', '/v1/me', { key: secret });
    while (after.status === 200 && Date.now() - revokedAt < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await call(on(1, 3), 'GET', '/v1/me', { key: secret });
    }
    expect(after.pid).toBe(before.pid);
    expect(after.pid).not.toBe(revoked.pid);
    expect(after.status).toBe(401);
    expect(after.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(after.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });

  it('when both workers deliver webhooks, then each event reaches the receiver exactly once', async () => {
    const integration = await call(on(0, 4), 'POST', '/v1/integrations', { body: { url: receiver.url, events: ['form.created'] } });
    expect(integration.status).toBe(201);
    const forms = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        call(on(index % 2 === 0 ? 0 : 1, index), 'POST', '/v1/forms', { body: { name: `Hook ${index}` } }),
      ),
    );
    expect(forms.map((form) => form.status)).toEqual(forms.map(() => 201));
    for (const started = Date.now(); receiver.received.length < forms.length && Date.now() - started < 30_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Both workers poll every second: give each a few more polls in which a duplicate would show.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const delivered = receiver.received.map((request) => JSON.parse(request.body) as { id: string; data: { object: { id: string } } });
    const eventIds = receiver.received.map((request) => request.headers['x-service-event-id']);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(delivered.map((event) => event.data.object.id).sort()).toEqual(forms.map((form) => String(form.body.id)).sort());
  });

  it('when submissions to one form arrive through both workers, then analytics count them at once and the workers fold them within seconds', async () => {
    const form = await call(on(0, 5), 'POST', '/v1/forms', { body: demoForm({ name: 'Busy' }) });
    expect(form.status).toBe(201);
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call(on(index % 2 === 0 ? 0 : 1, 5 + index), 'POST', '/v1/submissions', { body: { form_id: form.body.id, answers: anaAnswers() } }),
      ),
    );
    expect(created.map((answer) => answer.status)).toEqual(created.map(() => 201));
    const started = async () => {
      const analytics = await call(on(1, 5), 'GET', `/v1/analytics?form_id=${String(form.body.id)}`);
      expect(analytics.status).toBe(200);
      return (analytics.body.submissions as { started: number }).started;
    };
    expect(await started()).toBe(12);
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const pending = async () =>
        Number((await pool.query('SELECT COUNT(*) AS n FROM submission_aggregate_deltas WHERE form_id = $1', [form.body.id])).rows[0].n);
      for (const since = Date.now(); (await pending()) > 0 && Date.now() - since < 10_000; ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await pending()).toBe(0);
    } finally {
      await pool.end();
    }
    expect(await started()).toBe(12);
  });

  it('when the primary receives SIGTERM, then every worker drains and stops, and the primary exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = output.split('\n').filter((line) => line.startsWith('{'));
    const stopped = lines.filter((line) => line.includes('"msg":"stopped"')).map((line) => (JSON.parse(line) as { pid: number }).pid);
    expect(new Set(stopped)).toEqual(new Set([...byWorker.map((connections) => connections[0]!.pid), server.pid]));
  });

  it('when the workers cannot open the database, then each says so in one line and the primary stops and exits 1', async () => {
    const missing = new URL(database.url);
    missing.pathname = `/${missing.pathname.slice(1)}_missing`;
    const env = { ...process.env, DATA_DIR: dataDir, WORKERS: '2', DATABASE_URL: missing.toString(), PORT: '0', HOST: '127.0.0.1' };
    const failing = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    failing.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => failing.once('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(line).toMatch(/^Cannot open the database: .*does not exist/);
  });

  it('when WORKERS is above 1 without DATABASE_URL, then the server refuses in one line and exits 2', async () => {
    const env = { ...process.env, DATA_DIR: dataDir, WORKERS: '2', DATABASE_URL: '' };
    const refused = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    refused.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => refused.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('WORKERS above 1 needs DATABASE_URL')]);
  });
});
