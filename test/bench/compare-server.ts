/**
 * A child of compare-bench.ts: the full stack of one checkout (the directory given as the first argument) over
 * TLS, as the throughput bench builds it, on a temporary database with a workspace and the example form. It sends
 * its parent where to reach it, then answers each `cpu` message with its CPU time so far (microseconds).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { parse } from 'yaml';

const root = process.argv[2]!;
const load = async <T>(path: string): Promise<T> => (await import(join(root, path))) as T;
const { bootstrapWorkspace } = await load<typeof import('../../src/domain/workspaces/bootstrap.js')>('src/domain/workspaces/bootstrap.ts');
const { createSqliteStore } = await load<typeof import('../../src/store/sqlite/index.js')>('src/store/sqlite/index.ts');
const { createLogger } = await load<typeof import('../../src/logger.js')>('src/logger.ts');
const { benchApp } = await load<typeof import('./bench-app.js')>('test/bench/bench-app.ts');
const { createHttpsListener } = await load<typeof import('../../src/listeners.js')>('src/listeners.ts');
const { loadConfig } = await load<typeof import('../../src/config.js')>('src/config.ts');

const example = (name: string) =>
  parse(readFileSync(join(root, `openapi/components/examples/${name}.yaml`), 'utf8')).value as Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), 'form-funnel-compare-'));
const store = createSqliteStore(join(dir, 'bench.db'));
const built = await benchApp({ store, logger: createLogger({ logLevel: 'info' }, join(dir, 'requests.log')), validateResponses: true });
const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 });
// The checkout's own listener, as its `npm start` makes it.
const { server } = createHttpsListener({ key: pems.private, cert: pems.cert }, built.app, loadConfig({}).connectionLimits);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
const workspace = await bootstrapWorkspace(built.services, { name: 'Compare', plan: 'business' });
const authorization = `Bearer ${workspace.live_admin_key}`;
const agent = new https.Agent({ keepAlive: true, ca: pems.cert });
const call = (method: string, path: string, body?: unknown) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { authorization, ...(payload ? { 'content-type': 'application/json' } : {}) };
    const req = https.request(`${url}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
const { slug: _slug, ...formBody } = example('FormCreateRequest');
const created = await call('POST', '/v1/forms', formBody);
if (created.status !== 201) throw new Error(`POST /v1/forms: ${created.status} ${created.text}`);
const form = JSON.parse(created.text) as { id: string };
const submission = JSON.stringify({ ...example('SubmissionCreateRequest'), form_id: form.id });
for (let index = 0; index < 150; index++) await call('POST', '/v1/submissions', JSON.parse(submission));
agent.destroy();

process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpu: user + system });
  } else if (message === 'stop') {
    server.close();
    void built
      .flushLastUsed()
      .then(() => store.close())
      .finally(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
  }
});
process.send!({ url, authorization, formId: form.id, submission });
