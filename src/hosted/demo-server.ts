/**
 * The app with one hosted form, in this process, for the page's benchmark and its documentation screenshots: an
 * in-memory SQLite store, a self-signed certificate, a workspace, and the document's demo form (its
 * `FormCreateRequest` example) created with hosting on and the given appearance.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import selfsigned from 'selfsigned';
import type { Schema } from '../contract.js';
import { bootstrapWorkspace } from '../domain/workspaces/bootstrap.js';
import { buildApp } from '../http/app.js';
import { loadOrBundleContract } from '../http/contract-document.js';
import { messageClassesOf } from '../http/message-classes.js';
import { createSqliteStore } from '../store/sqlite/index.js';

export interface DemoServer {
  base: string;
  form: Schema<'Form'>;
  close(): Promise<void>;
}

export async function startDemoServer(appearance: Partial<Schema<'FormAppearance'>> = {}): Promise<DemoServer> {
  const store = createSqliteStore(':memory:', { backgroundCheckpoints: false });
  const contract = await loadOrBundleContract();
  const built = buildApp({ store, contract, logger: pino({ level: 'silent' }) });
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' });
  const server = https.createServer({ key: pems.private, cert: pems.cert, ...messageClassesOf(built.app) }, built.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workspace = await bootstrapWorkspace(built.services, { name: 'Demo', plan: 'business' });
  const examples = (contract.document.components as unknown as { examples: Record<string, { value: Schema<'FormCreate'> }> }).examples;
  const { slug: _slug, ...demo } = examples.FormCreateRequest!.value;
  const form = await new Promise<Schema<'Form'>>((resolve, reject) => {
    const req = https.request(
      `${base}/v1/forms`,
      {
        method: 'POST',
        ca: pems.cert,
        headers: { Authorization: `Bearer ${workspace.live_admin_key}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(body)) : reject(new Error(body))));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ ...demo, hosting: { enabled: true }, appearance }));
  });
  return {
    base,
    form,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await built.flushLastUsed();
      await store.close();
    },
  };
}
