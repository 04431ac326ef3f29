/**
 * An in-process API for HTTP tests: the real app over real TLS (a self-signed certificate made once per
 * process), on a fresh store of the run's kind (SQLite in memory, or a PostgreSQL database of its own under
 * TEST_STORE=postgres, dropped on close), with a bootstrapped workspace and its admin keys.
 */
import { statSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';
import request from 'supertest';
import type { Plan } from '../../src/contract.js';
import { type BootstrappedWorkspace, bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { type AppOptions, buildApp } from '../../src/http/app.js';
import { bundledDocumentPath, type Contract, loadContract } from '../../src/http/contract-document.js';
import { messageClassesOf } from '../../src/http/message-classes.js';
import { type Caller, createKey, type Method } from './factories.js';
import { createTestStore } from './stores.js';

/**
 * The bundled contract, read once per process while the bundle stays as it was: apps built from one document share
 * the validator's prepared schemas (src/http/validation.ts), which cost each app a few hundred milliseconds otherwise.
 */
let loaded: { stamp: string; contract: Contract } | undefined;
function testContract(): Contract {
  const { mtimeMs, size } = statSync(bundledDocumentPath);
  const stamp = `${mtimeMs}:${size}`;
  if (loaded?.stamp !== stamp) loaded = { stamp, contract: loadContract() };
  return loaded.contract;
}

let certificate: Promise<{ key: string; cert: string }> | undefined;
export function testCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= selfsigned
    .generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' })
    .then((pems) => ({ key: pems.private, cert: pems.cert }));
  return certificate;
}

export type TestApi = Awaited<ReturnType<typeof createTestApi>>;

export async function createTestApi(options: Partial<AppOptions> & { plan?: Plan } = {}) {
  const store = options.store ?? (await createTestStore());
  const built = buildApp({ ...options, contract: options.contract ?? testContract(), store });
  const { key, cert } = await testCertificate();
  // As the server's listener makes them (src/listeners.ts), every HTTP test's requests and responses are built with the app's prototypes.
  const server = https.createServer({ key, cert, ...messageClassesOf(built.app) }, built.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workspace = await bootstrapWorkspace(built.services, {
    name: 'Acme',
    plan: options.plan ?? 'business',
    adminEmail: 'owner@acme.test',
  });

  /** A request with the given key (default: the live admin key); `null` sends no Authorization header. */
  const call: Caller['call'] = (method: Method, path: string, key: string | null = workspace.live_admin_key) => {
    const req = request(baseUrl)[method](path).trustLocalhost().ca(cert);
    return key === null ? req : req.set('Authorization', `Bearer ${key}`);
  };

  return {
    ...built,
    store,
    baseUrl,
    certificate: cert,
    workspace,
    call,
    /** Creates a key through the API (test/support/factories.ts) and returns it with its secret. */
    createKey: (body: Parameters<typeof createKey>[1], adminKey?: string) => createKey({ call, workspace }, body, adminKey),
    /** Bootstraps another workspace in the same store. */
    otherWorkspace: (plan: Plan = 'business'): Promise<BootstrappedWorkspace> =>
      bootstrapWorkspace(built.services, { name: 'Other', plan }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => built.mail?.stop()).then(() => store.close()),
  };
}
