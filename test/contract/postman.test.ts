/**
 * The Postman collection (`npm run postman`) is generated from the document and works against the mock: run with
 * newman, with `baseUrl` pointed at Prism and the collection's `apiKey` variable set, every request of every
 * operation gets its documented success status. Prism runs with `--errors`, so a request the collection builds
 * against the contract is a failure here, not a silent header.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postmanCollection } from '../../src/cli/postman.js';
import { bundledJsonPath, documentedOperations, successStatus } from './support/document.js';
import { type RunningPrism, startPrism } from './support/prism.js';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const newman = join(root, 'node_modules/.bin/newman');
const apiKey = `svc_test_${'4eC39HqLyjWDarjt'.repeat(2)}`;
const directory = mkdtempSync(join(tmpdir(), 'postman-'));

let prism: RunningPrism;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(async () => {
  await prism?.stop();
  rmSync(directory, { recursive: true, force: true });
});

interface NewmanReport {
  run: {
    failures: Array<{ error: { message: string }; source?: { name?: string } }>;
    executions: Array<{ item: { name: string }; request: { method: string; url: { path: string[] } }; response?: { code: number } }>;
  };
}

describe('the Postman collection', () => {
  it('when generated, then the bearer key is a collection variable that its auth uses', async () => {
    const collection = (await postmanCollection(readFileSync(bundledJsonPath, 'utf8'))) as {
      auth: { type: string; bearer: Array<{ value: string }> };
      variable: Array<{ key: string }>;
    };
    expect(collection.auth).toMatchObject({ type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}' }] });
    expect(collection.variable.map((variable) => variable.key)).toEqual(expect.arrayContaining(['apiKey', 'baseUrl']));
    expect(JSON.stringify(collection)).not.toContain('{{bearerToken}}');
  });

  it('when a tag holds only a guide (Getting started), then the collection has no empty folder for it', async () => {
    type Item = { name: string; item?: Item[]; request?: unknown };
    const collection = (await postmanCollection(readFileSync(bundledJsonPath, 'utf8'))) as { item: Item[] };
    const empty = collection.item.filter((entry) => !entry.request && !(entry.item ?? []).length).map((entry) => entry.name);
    expect(empty).toEqual([]);
    expect(collection.item.map((entry) => entry.name)).not.toContain('Getting started');
  });

  it('when newman runs it against the mock, then every operation gets its documented success status', async () => {
    const collectionFile = join(directory, 'collection.json');
    const reportFile = join(directory, 'report.json');
    writeFileSync(collectionFile, JSON.stringify(await postmanCollection(readFileSync(bundledJsonPath, 'utf8'))));
    // newman exits non-zero when a request fails; its JSON report says which.
    await execute(
      newman,
      [
        'run',
        collectionFile,
        '--env-var',
        `baseUrl=${prism.url}`,
        '--env-var',
        `apiKey=${apiKey}`,
        '--reporters',
        'json',
        '--reporter-json-export',
        reportFile,
      ],
      { cwd: root },
    ).catch(() => undefined);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as NewmanReport;

    // When the mock itself went away mid-run (every later request refused), its last output says why.
    expect(
      report.run.failures.map((failure) => `${failure.source?.name}: ${failure.error.message}`),
      `Prism's output, last 4,000 characters:\n${prism.output().slice(-4000)}`,
    ).toEqual([]);
    const operations = documentedOperations();
    expect(report.run.executions).toHaveLength(operations.length);
    const statuses = report.run.executions.map((execution) => `${execution.item.name} ${execution.response?.code}`).sort();
    const expected = report.run.executions
      .map((execution) => {
        const method = execution.request.method;
        const pathName = `/${execution.request.url.path.join('/')}`;
        const operation = operations.find(
          (candidate) =>
            candidate.method === method &&
            new RegExp(`^${new URL(prism.url).pathname}${candidate.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathName),
        );
        return `${execution.item.name} ${operation ? successStatus(operation.operationId) : 'undocumented'}`;
      })
      .sort();
    expect(statuses).toEqual(expected);
  }, 120_000);
});
