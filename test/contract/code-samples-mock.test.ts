/**
 * The code samples of the published document (`x-codeSamples`, src/code-samples.ts) run as pasted: every TypeScript
 * sample (in one tsx process) and every curl sample (in `sh`), with FORM_FUNNEL_BASE_URL pointing at the Prism mock
 * and a dummy key, behind a proxy that records what each sample sent (test/contract/support/recording-proxy.ts). A
 * sample fails when it throws or exits non-zero, when any of its requests gets a non-2xx, or when it leaves out what
 * its operation asks of a careful caller: an `Idempotency-Key` where the operation takes one, `If-Match` with the
 * ETag just read where it takes that, the page after the last item of a list. Every event's receiver sample is
 * started and fed its signed test delivery (the event's curl sample), with the right secret and a wrong one.
 * The guides' TypeScript samples that show an error (a `console.log` in a `catch` whose comment says what it prints)
 * run in the same process, and must print that against the mock too: the mock answers a 2xx unless asked otherwise.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeSample } from '../../src/code-samples.js';
import { pngImage } from '../support/images.js';
import { portBecomes } from '../support/ports.js';
import { writePartnerTsconfig } from '../support/type-check.js';
import { deref, document } from './support/document.js';
import { freePort, type RunningPrism, startPrism } from './support/prism.js';
import { type Exchange, type RecordingProxy, startRecordingProxy } from './support/recording-proxy.js';

const root = path.resolve(import.meta.dirname, '../..');
const runner = path.join(root, 'test/contract/support/run-typescript-samples.ts');
const execute = promisify(execFile);

/** Syntactically valid (svc_test_ + 32 base62); the mock only checks that a Bearer credential is present. */
const apiKey = `svc_test_${'4eC39HqLyjWDarjt'.repeat(2)}`;
const webhookSecret = `whsec_${'Rk9ybUZ1bm5lbFRlc3Q'.repeat(2)}`;

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
}
interface SampledOperation {
  operationId: string;
  method: string;
  pathName: string;
  headers: string[];
  samples: CodeSample[];
}
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations: SampledOperation[] = Object.entries(document.paths).flatMap(([pathName, item]) =>
  METHODS.filter((method) => item[method]).map((method) => {
    const operation = item[method] as Json & { operationId: string; parameters?: Parameter[]; 'x-codeSamples': CodeSample[] };
    const parameters = [...((item.parameters as Parameter[] | undefined) ?? []), ...(operation.parameters ?? [])].map((p) =>
      deref<Parameter>(p),
    );
    return {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      pathName,
      headers: parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
      samples: operation['x-codeSamples'],
    };
  }),
);
interface Webhook {
  requestBody: { content: { 'application/json': { examples: Record<string, { value: { id: string } }> } } };
  'x-codeSamples': CodeSample[];
}
const events = Object.entries(document.webhooks ?? {}).map(([type, item]) => {
  const webhook = item.post as Webhook;
  const [example] = Object.values(deref(webhook.requestBody).content['application/json'].examples).map((e) => deref(e));
  return { type, eventId: example!.value.id, samples: webhook['x-codeSamples'] };
});
const sampleOf = (samples: CodeSample[], lang: CodeSample['lang']) => samples.find((sample) => sample.lang === lang)!.source;

interface GuideSample {
  name: string;
  source: string;
  /** What its error handling says it prints (the comment after a `console.log` in a `catch`), `…` for any text. */
  prints: string[];
}
/** The published guides' (tag descriptions') TypeScript blocks that say what they print when they catch an error. */
const guideSamples: GuideSample[] = ((document as { tags?: Array<{ name: string; description?: string }> }).tags ?? []).flatMap(
  ({ name, description = '' }) =>
    [...description.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].flatMap((match, index) => {
      const source = match[1]!;
      const afterCatch = source.slice(source.indexOf('catch (') + 1 || source.length);
      const prints = [...afterCatch.matchAll(/console\.log\(.*\);? \/\/ (.+)$/gm)].map((comment) => comment[1]!.trim());
      return prints.length === 0 ? [] : [{ name: `guide ${name} ${index + 1}`.replace(/[^A-Za-z0-9]+/g, '-'), source, prints }];
    }),
);
/** A line matching the comment: `…` stands for any text without spaces (an id). */
const printedLine = (comment: string) =>
  new RegExp(
    `^${comment
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\S*')}$`,
    'm',
  );

const directory = mkdtempSync(path.join(tmpdir(), 'code-samples-run-'));
let prism: RunningPrism;
let proxy: RecordingProxy;
let typeScriptResults: Array<{ name: string; error: string | null }>;
let typeScriptOutput: string;
const curlResults: Array<{ name: string; code: number; stderr: string }> = [];

const curlName = (operationId: string) => `curl ${operationId}`;

// curl shows a progress meter on stderr when its output is not a terminal; in a terminal, as pasted, it shows none.
writeFileSync(path.join(directory, '.curlrc'), 'silent\nshow-error\n');
// The file a logo sample uploads, beside the samples, where each runs.
writeFileSync(path.join(directory, 'logo.png'), pngImage(64, 64));

async function runShell(source: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const shellEnv = { ...process.env, CURL_HOME: directory, ...env };
  return execute('sh', ['-c', source], { cwd: directory, env: shellEnv, timeout: 20_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

beforeAll(async () => {
  prism = await startPrism();
  proxy = await startRecordingProxy(prism.url);
  const samplesEnv = { FORM_FUNNEL_BASE_URL: proxy.url, FORM_FUNNEL_KEY: apiKey };

  const files = [
    ...operations.map(({ operationId, samples }) => ({ name: operationId, source: sampleOf(samples, 'TypeScript') })),
    ...guideSamples,
  ].map(({ name, source }) => {
    const file = path.join(directory, `${name}.mts`);
    writeFileSync(file, source);
    return file;
  });
  const tsconfig = writePartnerTsconfig(directory, files);
  const resultsFile = path.join(directory, 'results.json');
  const ran = await execute(process.execPath, ['--import', 'tsx', runner, 'run', proxy.controlUrl, resultsFile, ...files], {
    cwd: root,
    env: { ...process.env, ...samplesEnv, TSX_TSCONFIG_PATH: tsconfig },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
  });
  typeScriptResults = JSON.parse(readFileSync(resultsFile, 'utf8'));
  typeScriptOutput = ran.stdout;

  for (const { operationId, samples } of operations) {
    proxy.runSample(curlName(operationId));
    const { code, stderr } = await runShell(sampleOf(samples, 'Shell'), samplesEnv);
    curlResults.push({ name: operationId, code, stderr });
  }
}, 360_000);

afterAll(async () => {
  await proxy?.stop();
  await prism?.stop();
  rmSync(directory, { recursive: true, force: true });
});

const templateMatcher = (pathName: string) => new RegExp(`^${pathName.replace(/\{[^}]+\}/g, '[^/]+')}$`);

/** What went wrong with one sample of an operation, judged by the exchanges it made; empty when nothing did. */
function problemsOf(operation: SampledOperation, exchanges: Exchange[]): string[] {
  const problems: string[] = [];
  const failed = exchanges.filter((exchange) => exchange.status < 200 || exchange.status > 299);
  for (const { method, path: requested, status } of failed) problems.push(`${method} ${requested} got ${status}`);
  const calls = exchanges.filter(
    ({ method, path: requested }) => method === operation.method && templateMatcher(operation.pathName).test(requested),
  );
  if (calls.length === 0) problems.push(`never sent ${operation.method} ${operation.pathName}`);
  for (const call of calls) {
    if (operation.headers.includes('idempotency-key') && !call.headers['idempotency-key']) problems.push('no Idempotency-Key');
    if (operation.headers.includes('if-match')) {
      const read = exchanges.find((exchange) => exchange.method === 'GET' && exchange.entityTag !== undefined);
      if (!read) problems.push('no read with an ETag before the change');
      else if (call.headers['if-match'] !== read.entityTag) problems.push(`If-Match ${call.headers['if-match']}, not ${read.entityTag}`);
    }
    if (call.lastItemOfFirstPage !== undefined) {
      const next = exchanges.some((exchange) => exchange.query.get('starting_after') === call.lastItemOfFirstPage);
      if (!next) problems.push(`no page after ${call.lastItemOfFirstPage}: did not page to the end`);
    }
  }
  return problems;
}

function problemsByLanguage(name: (operationId: string) => string): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const operation of operations) {
    const found = problemsOf(
      operation,
      proxy.exchanges.filter((exchange) => exchange.sample === name(operation.operationId)),
    );
    if (found.length > 0) problems[operation.operationId] = found;
  }
  return problems;
}

describe('code samples against the mock', () => {
  it('when every TypeScript sample runs, then none throws', () => {
    expect(typeScriptResults.map(({ name }) => name)).toEqual([
      ...operations.map(({ operationId }) => operationId),
      ...guideSamples.map(({ name }) => name),
    ]);
    expect(typeScriptResults.filter(({ error }) => error !== null)).toEqual([]);
  });

  it('when every curl sample runs in sh, then each exits 0 with nothing on stderr', () => {
    expect(curlResults.filter(({ code, stderr }) => code !== 0 || stderr !== '')).toEqual([]);
  });

  it('when the TypeScript samples ran, then each got only 2xx and sent what its operation asks of a careful caller', () => {
    expect(problemsByLanguage((operationId) => operationId)).toEqual({});
  });

  it('when the curl samples ran, then each got only 2xx and sent what its operation asks of a careful caller', () => {
    expect(problemsByLanguage(curlName)).toEqual({});
  });

  it('when a guide sample shows an error, then the mock answers it with one and the sample prints what it says', () => {
    // The getting-started guide's client sample shows a 404: finding none would mean the selection broke.
    expect(guideSamples.flatMap(({ prints }) => prints)).toContain('api 404 resource_not_found req_…');
    for (const { name, prints } of guideSamples) {
      const statuses = proxy.exchanges.filter((exchange) => exchange.sample === name).map((exchange) => exchange.status);
      expect(
        statuses.filter((status) => status >= 400),
        name,
      ).not.toEqual([]);
      for (const comment of prints) expect(typeScriptOutput, `${name} prints ${comment}`).toMatch(printedLine(comment));
    }
  });

  it('when a list sample ran, then the proxy had made its first page say has_more (so the check above is not vacuous)', () => {
    const paged = new Set(proxy.exchanges.filter((e) => e.lastItemOfFirstPage !== undefined).map((e) => e.sample));
    expect(paged.has('listForms')).toBe(true);
    expect(paged.has(curlName('listSubmissions'))).toBe(true);
  });
});

describe('webhook samples', () => {
  let receivers: ChildProcess | undefined;
  let output = '';
  const ports = new Map<string, number>();

  beforeAll(async () => {
    const served: string[] = [];
    for (const { type, samples } of events) {
      const file = path.join(directory, `receiver-${type}.mts`);
      writeFileSync(file, sampleOf(samples, 'TypeScript'));
      ports.set(type, await freePort());
      served.push(`${file}=${ports.get(type)}`);
    }
    const tsconfig = writePartnerTsconfig(
      directory,
      served.map((entry) => entry.split('=')[0]!),
    );
    receivers = spawn(process.execPath, ['--import', 'tsx', runner, 'serve', ...served], {
      cwd: root,
      detached: true,
      env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig, FORM_FUNNEL_WEBHOOK_SECRET: webhookSecret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receivers.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    receivers.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    for (const port of ports.values()) {
      if (!(await portBecomes(port, true, 60_000))) throw new Error(`a receiver did not listen on ${port}:\n${output}`);
    }
  }, 90_000);

  afterAll(() => {
    if (receivers?.pid !== undefined && receivers.exitCode === null && receivers.signalCode === null)
      process.kill(-receivers.pid, 'SIGTERM');
  });

  it("when each event's signed test delivery is sent to its receiver sample, then the receiver accepts it and handles the event", async () => {
    expect(events.length).toBeGreaterThan(0);
    for (const { type, eventId, samples } of events) {
      const delivery = await runShell(sampleOf(samples, 'Shell'), {
        FORM_FUNNEL_WEBHOOK_URL: `http://127.0.0.1:${ports.get(type)}`,
        FORM_FUNNEL_WEBHOOK_SECRET: webhookSecret,
      });
      expect({ type, code: delivery.code, stderr: delivery.stderr }).toEqual({ type, code: 0, stderr: '' });
      expect(output, type).toContain(eventId);
    }
  });

  it('when a delivery is signed with another secret, then every receiver sample refuses it with 400 no_matching_signature', async () => {
    for (const { type, samples } of events) {
      const delivery = await runShell(sampleOf(samples, 'Shell'), {
        FORM_FUNNEL_WEBHOOK_URL: `http://127.0.0.1:${ports.get(type)}`,
        FORM_FUNNEL_WEBHOOK_SECRET: `${webhookSecret}x`,
      });
      expect({ type, code: delivery.code, stdout: delivery.stdout }).toEqual({ type, code: 22, stdout: 'no_matching_signature' });
    }
  });
});
