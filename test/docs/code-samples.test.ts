/**
 * The code samples of the docs page (`x-codeSamples`, added to the bundle by src/code-samples.ts): every
 * operation has a curl command and a typed-client call, built from the operation's own examples, and every
 * TypeScript sample compiles against the client as a partner would write it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CodeSample } from '../../src/code-samples.js';
import { typeCheck } from '../support/type-check.js';

const root = new URL('../../', import.meta.url).pathname;
// Built by the global setup (test/setup/build-docs.ts: npm run docs bundles first).
const bundle = JSON.parse(readFileSync(join(root, 'dist/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; 'x-codeSamples'?: CodeSample[] }>>;
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = Object.entries(bundle.paths).flatMap(([pathName, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ pathName, method, operation: item[method]! })),
);
const directory = mkdtempSync(join(tmpdir(), 'code-samples-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('code samples', () => {
  it('when the bundle is built, then every operation has a curl and a TypeScript sample for its own method and path', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const { pathName, method, operation } of operations) {
      const samples = operation['x-codeSamples'] ?? [];
      expect(
        samples.map((sample) => sample.label),
        operation.operationId,
      ).toEqual(['curl', 'TypeScript client']);
      const [curl, typescript] = samples as [CodeSample, CodeSample];
      const concretePath = new RegExp(
        `^curl -X ${method.toUpperCase()} 'https://api\\.form-funnel\\.example/v1${pathName.replace(/\{[^}]+\}/g, "[^/?{}']+")}[?']`,
      );
      expect(curl.source, operation.operationId).toMatch(concretePath);
      expect(typescript.source, operation.operationId).toContain(`client.${method.toUpperCase()}('${pathName}'`);
    }
  });

  it('when every TypeScript sample is compiled on its own, then tsc reports nothing', async () => {
    const files = operations.map(({ operation }) => {
      const file = join(directory, `${operation.operationId}.mts`);
      writeFileSync(file, operation['x-codeSamples']!.find((sample) => sample.lang === 'TypeScript')!.source);
      return file;
    });
    expect(await typeCheck(directory, files)).toBe('');
  }, 120_000);
});
