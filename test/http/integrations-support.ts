/**
 * Helpers of the integration tests: a DNS table (no test asks real DNS except for `localhost`), a local HTTPS
 * receiver with a certificate for 127.0.0.1, a movable clock, and a validator for event bodies built from the
 * bundled OpenAPI document, so a delivered body is checked against the very schema the docs publish.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import selfsigned from 'selfsigned';
import { resolveWithDns } from '../../src/adapters/dns-resolver.js';
import type { ResolvedAddress, WebhookUrlPolicy } from '../../src/domain/integrations/webhook-url.js';
import { bundledDocumentPath } from '../../src/http/contract-document.js';

const dnsTable: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'intranet.example.com': ['10.20.30.40'],
  'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  // Unknown to real DNS: a delivery that reaches the receiver through this name used the checked address.
  'receiver.test': ['127.0.0.1'],
};

/** Answers from the table above; `localhost` goes to the system resolver (a real loopback answer). */
export async function fakeResolver(hostname: string): Promise<ResolvedAddress[]> {
  if (hostname === 'localhost') return resolveWithDns(hostname);
  const addresses = dnsTable[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

/** The URL policy of the tests: the table above; `allowPrivateAddresses` as ALLOW_PRIVATE_WEBHOOK_URLS sets it. */
export const testWebhookUrls = (allowPrivateAddresses = false): WebhookUrlPolicy => ({ allowPrivateAddresses, resolveHost: fakeResolver });

export function testClock(start: string) {
  let current = Date.parse(start);
  return {
    now: () => new Date(current),
    advance: (ms: number) => {
      current += ms;
    },
    seconds: () => Math.floor(current / 1000),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTPS endpoint on 127.0.0.1 answering with the statuses given, in order (the last one repeats); with `hang`,
 * it reads each request and never answers.
 */
export async function startReceiver(statuses: number[] = [200], options: { delayMs?: number; hang?: boolean } = {}) {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: 'receiver.test' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const received: ReceivedRequest[] = [];
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (options.hang) return;
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      setTimeout(() => res.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok'), options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/hooks/form-funnel`,
    /** The same endpoint by a host name only the test resolver knows. */
    namedUrl: `https://receiver.test:${port}/hooks/form-funnel`,
    cert: pems.cert,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
let ajv: Ajv2020 | undefined;

/** Validates `body` against a schema of the bundled document (`#/components/schemas/<name>`); returns the errors. */
export function schemaErrors(name: string, body: unknown): unknown[] {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const format of ['int32', 'int64', 'float', 'double']) ajv.addFormat(format, true);
    ajv.addSchema(JSON.parse(readFileSync(bundledDocumentPath, 'utf8')), 'openapi.json');
  }
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  return validate(body) ? [] : [...(validate.errors ?? [])];
}
