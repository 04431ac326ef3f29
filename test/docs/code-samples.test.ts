/**
 * The code samples of the docs page (`x-codeSamples`, added to the bundle by src/code-samples.ts): every
 * operation has a curl command and a typed-client call, built from the operation's own examples, every event a
 * receiver and a signed test delivery; every sample takes the base URL from FORM_FUNNEL_BASE_URL (production when
 * unset) and from nowhere else, and every TypeScript sample compiles against the client as a partner would write it.
 * test/contract/code-samples-mock.test.ts runs them all against the mock.
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
  servers: Array<{ url: string; variables?: Record<string, { default: string }> }>;
  paths: Record<string, Record<string, { operationId?: string; 'x-codeSamples'?: CodeSample[] }>>;
  webhooks: Record<string, { post: { operationId: string; 'x-codeSamples'?: CodeSample[] } }>;
};
const [production] = bundle.servers;
const productionUrl = production!.url.replace(/\{([^}]+)\}/g, (_, name: string) => production!.variables![name]!.default);
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
      const path = pathName.replace(/\{[^}]+\}/g, '[^/?{}"]+');
      expect(curl.source, operation.operationId).toMatch(
        new RegExp(`curl (-sS --fail-with-body )?(-X ${method.toUpperCase()} )?"[^"]*(${path}[?"]|\\$url)`),
      );
      expect(typescript.source, operation.operationId).toMatch(
        new RegExp(`(client\\.${method.toUpperCase()}|paginate\\(client, |exportSubmissions\\(client|setFormLogo\\(client)`),
      );
    }
  });

  it('when a sample names the base URL, then it takes it from FORM_FUNNEL_BASE_URL with production as the default', () => {
    const samples = operations.flatMap(({ operation }) => operation['x-codeSamples'] ?? []);
    const fromTheVariable: Record<CodeSample['lang'], string> = {
      Shell: `\${FORM_FUNNEL_BASE_URL:-${productionUrl}}`,
      TypeScript: `process.env.FORM_FUNNEL_BASE_URL || '${productionUrl}'`,
    };
    for (const { lang, source } of samples) {
      // Exactly once, and the host nowhere else: one place to point every sample at the mock or an instance.
      expect(source.split(fromTheVariable[lang]).length - 1, source).toBe(1);
      expect(source.split(new URL(productionUrl).host).length - 1, source).toBe(1);
    }
  });

  it('when the bundle is built, then every event has a TypeScript receiver and a signed curl test delivery', () => {
    expect(Object.keys(bundle.webhooks).length).toBeGreaterThan(0);
    for (const [type, { post }] of Object.entries(bundle.webhooks)) {
      const samples = post['x-codeSamples'] ?? [];
      expect(
        samples.map((sample) => sample.label),
        type,
      ).toEqual(['TypeScript receiver', 'curl (signed test delivery)']);
      expect(samples[0]!.source).toContain('verifyWebhookSignature(');
      expect(samples[1]!.source).toContain(`X-Service-Event-Type: ${type}`);
    }
  });

  it('when every TypeScript sample is compiled on its own, then tsc reports nothing', async () => {
    const sampled = [...operations.map(({ operation }) => operation), ...Object.values(bundle.webhooks).map(({ post }) => post)];
    const files = sampled.map((operation) => {
      const file = join(directory, `${operation.operationId}.mts`);
      writeFileSync(file, operation['x-codeSamples']!.find((sample) => sample.lang === 'TypeScript')!.source);
      return file;
    });
    expect(await typeCheck(directory, files)).toBe('');
  }, 120_000);
});
