/**
 * The reference server as an operator runs it, in each deployment of `./support/server-process.ts`: one process
 * on SQLite, and `WORKERS=2` on PostgreSQL and Redis. The admin command makes the first keys against the same
 * data, and the typed client talks to it over real HTTPS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormFunnelClient, isFormFunnelError, unwrap } from '../../src/client/index.js';
import { fetchTrusting, type TrustingFetch } from './support/fetch-trusting.js';
import { deployments, type ServerProcess, startServerProcess } from './support/server-process.js';

describe.each(deployments)('the server started with npm start, $name', (deployment) => {
  let server: ServerProcess;
  let keys: { workspace_id: string; live_admin_key: string; test_admin_key: string };
  let transport: TrustingFetch;

  beforeAll(async () => {
    server = await startServerProcess(deployment);
    keys = JSON.parse(await server.admin('bootstrap', '--workspace', 'Acme', '--plan', 'business', '--json')) as typeof keys;
    transport = fetchTrusting(server.certificate);
  }, 120_000);

  afterAll(async () => {
    transport?.close();
    await server?.stop();
  });

  const client = (apiKey: string) =>
    createFormFunnelClient({ apiKey, baseUrl: `https://localhost:${server.port}/v1`, fetch: transport.fetch, maxRetries: 0 });

  it('when it starts on fresh data, then it says where it listens and how to get a first admin key', () => {
    const output = server.output();
    expect(output).toContain(`https://localhost:${server.port}/v1`);
    if (deployment.workers > 1) expect(output).toContain(`(${deployment.workers} worker processes)`);
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
    const response = await fetch(`http://127.0.0.1:${server.httpPort}/v1/me`, {
      headers: { Authorization: `Bearer ${keys.live_admin_key}` },
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('https_required');
    expect((await fetch(`http://127.0.0.1:${server.httpPort}/docs`)).status).toBe(403);
  });

  // Only the deployment configured behind a load balancer has one: the test exists there, not as a skip elsewhere.
  if (deployment.behindLoadBalancer) {
    it('when the trusted load balancer forwards plain HTTP saying the client used HTTPS, then it is served with the client address it names', async () => {
      const forwarded = { Authorization: `Bearer ${keys.live_admin_key}`, 'X-Forwarded-For': '203.0.113.9' };
      const served = await fetch(`http://127.0.0.1:${server.httpPort}/v1/me`, { headers: { ...forwarded, 'X-Forwarded-Proto': 'https' } });
      expect(served.status).toBe(200);
      const requestId = served.headers.get('x-request-id')!;
      await server.pidOf(requestId);
      const line = server
        .output()
        .split('\n')
        .find((entry) => entry.includes(`"request_id":"${requestId}"`))!;
      expect(JSON.parse(line)).toMatchObject({ client_ip: '203.0.113.9', status: 200 });
      const refused = await fetch(`http://127.0.0.1:${server.httpPort}/v1/me`, { headers: { ...forwarded, 'X-Forwarded-Proto': 'http' } });
      expect(refused.status).toBe(403);
    });
  }

  it('when it logs requests, then each is one JSON line with its request id and key id, and no secret appears', () => {
    const output = server.output();
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

  it('when a client reconnects with its TLS session, then the handshake is resumed, whichever process takes the connection', async () => {
    const ca = readFileSync(join(server.dataDir, 'tls-cert.pem'));
    /** One request on a new connection offering `session`: whether it resumed, who answered, and the newest session. */
    const visit = (session?: Buffer) =>
      new Promise<{ reused: boolean; requestId: string; session: Buffer | undefined }>((resolve, reject) => {
        let reused = false;
        let latest: Buffer | undefined;
        let text = '';
        const socket = tls.connect({ port: server.port, host: '127.0.0.1', servername: 'localhost', ca, session }, () => {
          reused = socket.isSessionReused();
          socket.write(
            `GET /v1/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${keys.live_admin_key}\r\nConnection: close\r\n\r\n`,
          );
        });
        socket.on('session', (ticket: Buffer) => {
          latest = ticket;
        });
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        socket.on('error', reject);
        socket.on('close', () => {
          const requestId = /x-request-id: (req_\w+)/i.exec(text)?.[1];
          if (!requestId) reject(new Error(`no answer: ${text}`));
          else resolve({ reused, requestId, session: latest });
        });
      });

    let { session } = await visit();
    const resumedBy = new Set<number>();
    // The cluster hands each new connection to the next worker: a few reconnections reach every process. (Node's
    // cluster gives the workers' servers the same ticket keys; separate processes on their own ports would not
    // resume each other's sessions.)
    for (let attempt = 0; attempt < 16 && (attempt < 2 * deployment.workers || resumedBy.size < deployment.workers); attempt++) {
      const again = await visit(session);
      expect(again.reused).toBe(true);
      resumedBy.add(await server.pidOf(again.requestId));
      session = again.session ?? session;
    }
    expect(resumedBy.size).toBe(deployment.workers);
  });

  it('when it receives SIGTERM, then in every process idle kept-alive connections close, a request in flight finishes with Connection: close, and it exits 0 promptly', async () => {
    const until = async (condition: () => boolean, ms = 5000) => {
      const started = Date.now();
      while (!condition()) {
        if (Date.now() - started > ms) throw new Error(`timed out; server output:\n${server.output().slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const auth = `Authorization: Bearer ${keys.live_admin_key}\r\n`;
    /** A kept-alive connection that has had one answer, and the process that gave it. */
    const connect = async () => {
      const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
        const opened = tls.connect(
          { port: server.port, host: '127.0.0.1', servername: 'localhost', ca: readFileSync(join(server.dataDir, 'tls-cert.pem')) },
          () => resolve(opened),
        );
        opened.on('error', reject);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(`GET /v1/me HTTP/1.1\r\nHost: localhost\r\n${auth}\r\n`);
      await until(() => /\r\n\r\n\{[\s\S]*\}$/.test(text));
      expect(text).toMatch(/^HTTP\/1\.1 200 /);
      expect(text).toMatch(/connection: keep-alive/i);
      const pid = await server.pidOf(/x-request-id: (req_\w+)/i.exec(text)![1]!);
      const answered = text.length;
      return { socket, pid, closed, sinceFirst: () => text.slice(answered) };
    };

    // The cluster hands each new connection to the next worker: open connections until every process holds
    // an idle one and a busy one.
    const idle = new Map<number, Awaited<ReturnType<typeof connect>>>();
    const busy = new Map<number, Awaited<ReturnType<typeof connect>>>();
    for (let attempt = 0; attempt < 16 && busy.size < deployment.workers; attempt++) {
      const connection = await connect();
      if (!idle.has(connection.pid)) idle.set(connection.pid, connection);
      else if (!busy.has(connection.pid)) busy.set(connection.pid, connection);
      else connection.socket.destroy();
    }
    expect(busy.size).toBe(deployment.workers);

    // A request in flight on each process: its headers are sent and read (the server's 100 Continue says so,
    // where a fixed pause would not on a busy machine) and half its body is sent before SIGTERM, the rest after.
    const body = JSON.stringify({ name: 'In flight at shutdown' });
    for (const { socket } of busy.values()) {
      socket.write(
        `POST /v1/forms HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
    }
    for (const connection of busy.values()) await until(() => /^HTTP\/1\.1 100 Continue\r\n\r\n/.test(connection.sinceFirst()));
    for (const { socket } of busy.values()) socket.write(body.slice(0, 10));

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await until(() => server.output().split('"msg":"shutting down"').length - 1 === deployment.workers);
    await Promise.all([...idle.values()].map((connection) => connection.closed));
    for (const { socket } of busy.values()) expect(socket.destroyed).toBe(false);

    // The rest is written without ending the socket: a client that half-closed its side would see its request
    // aborted (Node's default), not drained. The server closes the connection after the answer.
    for (const { socket } of busy.values()) socket.write(body.slice(10));
    await Promise.all([...busy.values()].map((connection) => connection.closed));
    for (const connection of busy.values()) {
      const answer = connection.sinceFirst().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(answer).toMatch(/connection: close/i);
      expect(answer).toContain('"name":"In flight at shutdown"');
    }

    expect(await server.exited).toBe(0);
    // Well inside the 10 s after which remaining connections would be cut.
    expect(Date.now() - signalled).toBeLessThan(5000);
    const stopped = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"msg":"stopped"'))
      .map((line) => (JSON.parse(line) as { pid: number }).pid);
    // Every process that served stopped in order (and, in a cluster, the primary after them).
    expect(new Set(stopped)).toEqual(new Set([...busy.keys(), server.child.pid]));
  }, 30_000);
});
