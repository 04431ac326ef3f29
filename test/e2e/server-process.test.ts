/**
 * The reference server as an operator runs it: `node --import tsx src/server.ts` in its own process, a data
 * directory of its own, the admin command for the first keys, and the typed client over real HTTPS.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormFunnelClient, isFormFunnelError, unwrap } from '../../src/client/index.js';
import { fetchTrusting, type TrustingFetch } from './support/fetch-trusting.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

let dataDir: string;
let server: ChildProcess;
let output = '';
let port: number;
let httpPort: number;
let keys: { workspace_id: string; live_admin_key: string; test_admin_key: string };
let transport: TrustingFetch;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'form-funnel-e2e-'));
  [port, httpPort] = [await freePort(), await freePort()];
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HTTP_PORT: String(httpPort), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  while (!output.includes('Form-Funnel API listening')) {
    if (server.exitCode !== null || Date.now() - started > 60_000) throw new Error(`server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const admin = await run(
    process.execPath,
    ['--import', 'tsx', 'src/cli/admin.ts', 'bootstrap', '--workspace', 'Acme', '--plan', 'business', '--json'],
    { cwd: root, env },
  );
  keys = JSON.parse(admin.stdout) as typeof keys;
  transport = fetchTrusting(readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'));
});

afterAll(() => {
  transport?.close();
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const client = (apiKey: string) =>
  createFormFunnelClient({ apiKey, baseUrl: `https://localhost:${port}/v1`, fetch: transport.fetch, maxRetries: 0 });

describe('the server started with npm start', () => {
  it('when it starts on a fresh data directory, then it says where it listens and how to get a first admin key', () => {
    expect(output).toContain(`https://localhost:${port}/v1`);
    expect(output).toContain('npm run admin -- bootstrap');
    expect(keys.live_admin_key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(keys.test_admin_key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
  });

  it('when the typed client creates, pages through, updates, versions and deletes forms, then the server answers as the document says', async () => {
    const api = client(keys.live_admin_key);
    const me = unwrap(await api.GET('/me'));
    expect(me.workspace.id).toBe(keys.workspace_id);
    const created = [];
    for (let index = 0; index < 5; index++) created.push(unwrap(await api.POST('/forms', { body: { name: `Funnel ${index}` } })));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = unwrap(await api.GET('/forms', { params: { query: { limit: 2, ...(cursor ? { starting_after: cursor } : {}) } } }));
      seen.push(...page.data.map((form) => form.id));
      if (!page.has_more) break;
      cursor = page.data.at(-1)!.id;
    }
    expect(seen).toEqual(created.map((form) => form.id).reverse());
    const updated = unwrap(await api.PATCH('/forms/{id}', { params: { path: { id: created[0]!.id } }, body: { name: 'Renamed' } }));
    expect(updated.version).toBe(2);
    const versions = unwrap(await api.GET('/forms/{id}/versions', { params: { path: { id: created[0]!.id } } }));
    expect(versions.data.map((version) => version.version)).toEqual([2, 1]);
    for (const form of created) unwrap(await api.DELETE('/forms/{id}', { params: { path: { id: form.id } } }));
    const error = await api
      .GET('/forms/{id}', { params: { path: { id: created[0]!.id } } })
      .then(unwrap)
      .catch((caught: unknown) => caught);
    expect(isFormFunnelError(error) && error.code).toBe('resource_not_found');
  });

  it('when a request comes over plain HTTP, then it gets 403 https_required and nothing else is served', async () => {
    const response = await fetch(`http://127.0.0.1:${httpPort}/v1/me`, { headers: { Authorization: `Bearer ${keys.live_admin_key}` } });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('https_required');
    expect((await fetch(`http://127.0.0.1:${httpPort}/docs`)).status).toBe(403);
  });

  it('when it logs requests, then each is one JSON line with its request id and key id, and no secret appears', () => {
    const lines = output.split('\n').filter((line) => line.startsWith('{') && line.includes('"msg":"request"'));
    expect(lines.length).toBeGreaterThan(5);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({
      request_id: expect.stringMatching(/^req_/),
      status: expect.any(Number),
      duration_ms: expect.any(Number),
    });
    expect(output).toContain('"key_id":"key_');
    expect(output).not.toContain(keys.live_admin_key);
    expect(output).not.toContain(keys.live_admin_key.slice(9));
    const logs = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .join('\n');
    expect(logs.toLowerCase()).not.toContain('authorization');
    expect(logs).not.toContain('Bearer');
  });

  it('when it receives SIGTERM, then idle kept-alive connections close, a request in flight finishes with Connection: close, and it exits 0 promptly', async () => {
    const connect = () =>
      new Promise<tls.TLSSocket>((resolve, reject) => {
        const socket = tls.connect(
          { port, host: '127.0.0.1', servername: 'localhost', ca: readFileSync(join(dataDir, 'tls-cert.pem')) },
          () => resolve(socket),
        );
        socket.on('error', reject);
      });
    const received = (socket: tls.TLSSocket) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      return { text: () => text, closed };
    };
    const until = async (condition: () => boolean, ms = 5000) => {
      const started = Date.now();
      while (!condition()) {
        if (Date.now() - started > ms) throw new Error(`timed out; server output:\n${output.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const auth = `Authorization: Bearer ${keys.live_admin_key}\r\n`;

    // A kept-alive connection that has had its answer and waits.
    const idle = await connect();
    const idleReceived = received(idle);
    idle.write(`GET /v1/me HTTP/1.1\r\nHost: localhost\r\n${auth}\r\n`);
    await until(() => /\r\n\r\n\{[\s\S]*\}$/.test(idleReceived.text()));
    expect(idleReceived.text()).toMatch(/^HTTP\/1\.1 200 /);
    expect(idleReceived.text()).toMatch(/connection: keep-alive/i);

    // A request in flight: its headers and half its body are sent before SIGTERM, the rest after.
    const body = JSON.stringify({ name: 'In flight at shutdown' });
    const busy = await connect();
    const busyReceived = received(busy);
    busy.write(
      `POST /v1/forms HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    busy.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    const signalled = Date.now();
    server.kill('SIGTERM');
    await until(() => output.includes('"msg":"shutting down"'));
    await idleReceived.closed;
    expect(busy.destroyed).toBe(false);

    busy.end(body.slice(10));
    await busyReceived.closed;
    expect(busyReceived.text()).toMatch(/^HTTP\/1\.1 201 /);
    expect(busyReceived.text()).toMatch(/connection: close/i);
    expect(busyReceived.text()).toContain('"name":"In flight at shutdown"');

    expect(await exited).toBe(0);
    // Well inside the 10 s after which remaining connections would be cut.
    expect(Date.now() - signalled).toBeLessThan(5000);
    expect(output).toContain('"msg":"stopped"');
  }, 30_000);
});
