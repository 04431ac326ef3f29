/**
 * The app with one hosted form, in this process, for the page's benchmark and its documentation screenshots: an
 * in-memory SQLite store, a self-signed certificate, a workspace, and the document's demo form (its
 * `FormCreateRequest` example) created with hosting on and the given appearance; more forms, and logos, on request.
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

/** A form as `POST /v1/forms` takes it: members with defaults may be left out, the appearance's too. */
export type DemoFormBody = Omit<Schema<'FormCreate'>, 'appearance'> & { appearance?: Partial<Schema<'FormAppearance'>> };

export interface DemoServer {
  base: string;
  form: Schema<'Form'>;
  /** Creates another live form in the demo workspace, as `POST /v1/forms` does. */
  createForm(body: DemoFormBody): Promise<Schema<'Form'>>;
  /** Gives a form its logo, as `PUT /v1/forms/{id}/logo` does. */
  setLogo(formId: string, image: Buffer, type: 'image/png' | 'image/jpeg' | 'image/webp'): Promise<Schema<'Form'>>;
  close(): Promise<void>;
}

export async function startDemoServer(appearance: Partial<Schema<'FormAppearance'>> = {}): Promise<DemoServer> {
  const store = createSqliteStore(':memory:', { backgroundCheckpoints: false });
  const contract = await loadOrBundleContract();
  let base = '';
  // The addresses the service hands out (hosting.url, a logo's url) are on the address the browser uses.
  const built = buildApp({ store, contract, logger: pino({ level: 'silent' }), localBaseUrl: () => base });
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' });
  const server = https.createServer({ key: pems.private, cert: pems.cert, ...messageClassesOf(built.app) }, built.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workspace = await bootstrapWorkspace(built.services, { name: 'Demo', plan: 'business' });

  /** One request with the workspace's live admin key; the form it answers with, or the answer's body as an error. */
  const send = (method: 'POST' | 'PUT', path: string, body: Buffer, type: string, expected: number) =>
    new Promise<Schema<'Form'>>((resolve, reject) => {
      const req = https.request(
        `${base}/v1${path}`,
        { method, ca: pems.cert, headers: { Authorization: `Bearer ${workspace.live_admin_key}`, 'Content-Type': type } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === expected) resolve(JSON.parse(text));
            else reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const createForm = (body: DemoFormBody) => send('POST', '/forms', Buffer.from(JSON.stringify(body)), 'application/json', 201);

  const examples = (contract.document.components as unknown as { examples: Record<string, { value: Schema<'FormCreate'> }> }).examples;
  const { slug: _slug, ...demo } = examples.FormCreateRequest!.value;
  const form = await createForm({ ...demo, hosting: { enabled: true }, appearance });
  return {
    base,
    form,
    createForm,
    setLogo: (formId, image, type) => send('PUT', `/forms/${formId}/logo`, image, type, 200),
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await built.flushLastUsed();
      await store.close();
    },
  };
}
