/**
 * Records the document's examples from the reference server: the story (./story.ts) runs against a fresh app on an
 * empty store, with a clock that moves a fixed step per request and repeatable ids and secrets, so two runs give the
 * same answers. The result maps each example file to the value it should hold.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { WebhookUrlPolicy } from '../domain/integrations/webhook-url.js';
import { buildApp } from '../http/app.js';
import type { Contract } from '../http/contract-document.js';
import { useIdSource } from '../ids.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { Store } from '../store/types.js';
import { type OperationExamples, operationExamples, readExample, webhookExamples } from './document-files.js';
import { repeatableIdSource } from './repeatable-ids.js';
import { type Kept, type Step, setTheScene, story, unrecordedExamples } from './story.js';

/**
 * When the story starts, and how far the clock moves before each request: less than the minute over which
 * `last_used_at` writes are coalesced, so every use after a key's first is written by the flush between two requests
 * (and never races the request that lists the keys, which it would on PostgreSQL).
 */
export const storyStart = '2026-11-02T09:00:00.000Z';
const stepMs = 45_000;

/** Webhook hosts of the examples resolve to a public address; nothing is delivered while recording. */
const exampleWebhookUrls: WebhookUrlPolicy = {
  allowPrivateAddresses: false,
  resolveHost: async () => [{ address: '93.184.215.14', family: 4 }],
};

export interface Recording {
  /** The value of each example file the story wrote (paths relative to openapi/), in the order written. */
  examples: Map<string, unknown>;
  /** The files that hold NDJSON: compared line by line as JSON, since a store may order an object's keys its own way. */
  ndjson: Set<string>;
}

export interface RecordOptions {
  contract?: Contract;
  /** Default: SQLite in memory. */
  store?: Store;
}

type Json = Record<string, unknown>;

function successStatus(operation: OperationExamples): string {
  const statuses = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
  if (statuses.length !== 1) throw new Error(`${operation.operationId} documents ${statuses.length} success statuses`);
  return statuses[0]!;
}

function pathOf(operation: OperationExamples, params: Record<string, string | number>): string {
  return operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (params[name] === undefined) throw new Error(`${operation.operationId}: no value for the path parameter ${name}`);
    return encodeURIComponent(String(params[name]));
  });
}

/** The file of the response example `step` writes to. */
function responseFile(operation: OperationExamples, step: Step, mediaType: string): string {
  const status = successStatus(operation);
  const chosen = step.records || {};
  const examples = operation.responses[status]?.[chosen.mediaType ?? mediaType] ?? {};
  const names = Object.keys(examples);
  const name = chosen.example ?? (names.length === 1 ? names[0] : undefined);
  if (name === undefined || !(name in examples)) {
    throw new Error(`${operation.operationId} ${status} ${mediaType}: say which example to record (${names.join(', ') || 'none'})`);
  }
  const file = examples[name];
  if (!file) throw new Error(`${operation.operationId} ${status} ${mediaType} ${name}: move the inline example to components/examples`);
  return file;
}

export async function recordExamples(options: RecordOptions = {}): Promise<Recording> {
  let clock = new Date(storyStart);
  const now = () => clock;
  const restoreIds = useIdSource(repeatableIdSource(now));
  const store = options.store ?? createSqliteStore(':memory:');
  const server = http.createServer();
  try {
    const { app, services, flushLastUsed, flushUsage } = buildApp({
      store,
      contract: options.contract,
      now,
      webhookUrls: exampleWebhookUrls,
      // Plain HTTP on loopback, vouched for as HTTPS: the recorder is its own trusted proxy.
      trustedProxies: ['127.0.0.1'],
    });
    server.on('request', app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const operations = operationExamples();
    const webhooks = webhookExamples();
    const examples = new Map<string, unknown>();
    const ndjson = new Set<string>();
    const kept: Kept = {};
    await setTheScene(services, kept);

    for (const step of story) {
      clock = new Date(clock.getTime() + stepMs);
      const operation = operations.get(step.operationId);
      if (!operation) throw new Error(`the story calls ${step.operationId}, which the document does not have`);
      const requestFile = step.request === undefined ? undefined : operation.requests[step.request];
      if (step.request !== undefined && requestFile === undefined)
        throw new Error(`${step.operationId} has no request example ${step.request}`);
      const example = requestFile === undefined ? undefined : (readExample(requestFile).value as Json);
      await step.before?.(services, kept, example);
      const body = step.body ?? (example && (step.rewrite ? step.rewrite(example, kept) : example));
      if (requestFile !== undefined) examples.set(requestFile, body);

      const url = new URL(base + pathOf(operation, step.params?.(kept) ?? {}));
      for (const [name, value] of Object.entries(step.query?.(kept) ?? {})) url.searchParams.set(name, value);
      const key = step.key === null ? null : kept[step.key ?? 'live_admin_key'];
      const form = operation.requestMediaType === 'application/x-www-form-urlencoded';
      const file = step.file && { mediaType: step.file.mediaType, bytes: step.file.bytes() };
      const response = await fetch(url, {
        method: operation.method.toUpperCase(),
        headers: {
          'X-Forwarded-Proto': 'https',
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...(step.accept ? { Accept: step.accept } : {}),
          ...(body ? { 'Content-Type': operation.requestMediaType ?? 'application/json' } : {}),
          ...(file ? { 'Content-Type': file.mediaType } : {}),
        },
        body: file
          ? file.bytes
          : body === undefined
            ? undefined
            : form
              ? new URLSearchParams(body as Record<string, string>).toString()
              : JSON.stringify(body),
      });
      const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      const text = await response.text();
      const answer: unknown = mediaType === 'application/json' ? JSON.parse(text) : text;
      await flushLastUsed();
      await flushUsage();
      if (String(response.status) !== successStatus(operation)) {
        throw new Error(`${step.operationId} answered ${response.status}: ${text.slice(0, 2000)}`);
      }
      if (typeof step.keep === 'string') kept[step.keep] = (answer as Json).id as string;
      else if (step.keep) Object.assign(kept, step.keep(answer as Json, kept));
      if (step.webhooks) {
        for (const event of [...((answer as Json).data as Json[])].reverse()) {
          const file = Object.values(webhooks.get(event.type as string) ?? {})[0];
          if (file && !examples.has(file)) examples.set(file, event);
        }
      }
      if (step.records !== false) {
        const file = responseFile(operation, step, mediaType);
        examples.set(file, answer);
        if (mediaType === 'application/x-ndjson') ndjson.add(file);
      }
    }
    return { examples, ndjson };
  } finally {
    restoreIds();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!options.store) await store.close();
  }
}

/** Example files whose value differs from the recording, and success examples neither recorded nor listed as exceptions. */
export function examplesDrift(recording: Recording): { changed: string[]; unaccounted: string[] } {
  const comparable = (file: string, value: unknown) =>
    recording.ndjson.has(file) && typeof value === 'string' ? value.split('\n').map((line) => (line ? JSON.parse(line) : line)) : value;
  const changed = [...recording.examples]
    .filter(([file, value]) => !isDeepStrictEqual(comparable(file, readExample(file).value), comparable(file, value)))
    .map(([file]) => file);
  const recorded = new Set(recording.examples.keys());
  const unaccounted: string[] = [];
  for (const operation of operationExamples().values()) {
    for (const [status, byMediaType] of Object.entries(operation.responses)) {
      if (!status.startsWith('2')) continue;
      for (const [mediaType, examples] of Object.entries(byMediaType)) {
        for (const [name, file] of Object.entries(examples)) {
          const label = `${operation.operationId} ${status} ${mediaType} ${name}`;
          if (!(file && recorded.has(file)) && !(label in unrecordedExamples)) unaccounted.push(label);
        }
      }
    }
  }
  for (const [type, examples] of webhookExamples()) {
    for (const file of Object.values(examples)) {
      if (!recorded.has(file) && !(`webhook ${type}` in unrecordedExamples)) unaccounted.push(`webhook ${type}`);
    }
  }
  return { changed, unaccounted };
}
