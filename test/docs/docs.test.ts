// The reference docs (`npm run docs` → dist/docs/index.html) are one self-contained page: opened in headless
// Chromium with every network request refused, they still render every operation and webhook.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { chromiumLaunchOptions } from '../support/chromium.js';

const root = path.resolve(import.meta.dirname, '../..');
// Both built by the global setup (test/setup/build-docs.ts).
const docsFile = path.join(root, 'dist/docs/index.html');
const bundledFile = path.join(root, 'dist/openapi.yaml');
const pageUrl = pathToFileURL(docsFile).href;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface DocumentedOperation {
  where: string;
  operationId: string;
  summary: string;
}

/** Every operation and webhook of the bundled document. */
function documentedOperations(): DocumentedOperation[] {
  const doc = YAML.parse(readFileSync(bundledFile, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
  const operations: DocumentedOperation[] = [];
  for (const [group, items] of [
    ['', doc.paths ?? {}],
    ['webhook ', doc.webhooks ?? {}],
  ] as const) {
    for (const [name, item] of Object.entries(items)) {
      for (const method of METHODS) {
        const operation = (item as Record<string, { operationId?: string; summary?: string }>)[method];
        if (!operation) continue;
        operations.push({
          where: `${group}${method.toUpperCase()} ${name}`,
          operationId: operation.operationId ?? '',
          summary: operation.summary ?? '',
        });
      }
    }
  }
  return operations;
}

let browser: Browser;
let page: Page;
const refused: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await chromium.launch(chromiumLaunchOptions);
  const context = await browser.newContext();
  // Only the page itself may load; everything else (CDN scripts, images, fonts, telemetry) is refused and counted.
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url === pageUrl || url.startsWith('data:')) return route.continue();
    refused.push(`${route.request().resourceType()} ${url}`);
    return route.abort('blockedbyclient');
  });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(pageUrl, { waitUntil: 'load' });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Sidebar links to operations, by route: Redoc lists a tag's operations at `#/<tag>/<lowercased operationId>`. */
async function operationRoutes(): Promise<string[]> {
  const hrefs = (selector: string): Promise<string[]> =>
    page.locator(selector).evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href') ?? ''));
  const tagRoutes = new Set((await hrefs('a[href]')).filter((href) => /^\/[a-z0-9-]+$/.test(href)));
  const routes = new Set<string>();
  for (const tag of tagRoutes) {
    await page.goto(`${pageUrl}#${tag}`);
    for (const href of await hrefs(`a[href^="#${tag}/"]`)) {
      if (!href.includes('#', 1)) routes.add(href.slice(1));
    }
  }
  return [...routes];
}

describe('reference docs', () => {
  it('when the page is built, then it loads no script or style from the network', () => {
    const html = readFileSync(docsFile, 'utf8');
    expect(html.match(/<script[^>]*\bsrc=["']?(https?:)?\/\//gi) ?? []).toEqual([]);
    expect(html.match(/<link[^>]*\bhref=["']?(https?:)?\/\//gi) ?? []).toEqual([]);
  });

  it('when opened with the network refused, then it renders every operation and webhook', async () => {
    const operations = documentedOperations();
    expect(operations.length).toBeGreaterThan(0);
    const routes = await operationRoutes();

    const missing: string[] = [];
    for (const { where, operationId, summary } of operations) {
      const route = routes.find((candidate) => candidate.endsWith(`/${operationId.toLowerCase()}`));
      if (!route) {
        missing.push(`${where} (${operationId}): not in the sidebar`);
        continue;
      }
      // Redoc renders an operation when it is shown: its section has the route as id and the summary as title.
      await page.goto(`${pageUrl}#${route}`);
      const section = page.locator(`[id="${route.slice(1)}"]`);
      await section.waitFor({ timeout: 10_000 });
      if (!((await section.textContent()) ?? '').includes(summary)) missing.push(`${where} (${operationId}): no "${summary}"`);
    }
    expect(missing).toEqual([]);
    expect(pageErrors).toEqual([]);
    // Not even the "API docs by Redocly" logo: npm run docs inlines it (src/cli/docs-offline.ts).
    expect(refused).toEqual([]);
    console.log(`docs: ${operations.length} operations and webhooks rendered offline`);
  }, 180_000);

  it('when the servers are listed, then each one, the mock and the local reference server included, shows its description as plain text', async () => {
    const servers = bundledDocument().servers;
    expect(servers.map((server) => server.url)).toEqual(
      expect.arrayContaining(['http://127.0.0.1:4010/v1', expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/v1$/)]),
    );
    await page.goto(`${pageUrl}#/forms/getform`);
    await page.locator('[id="forms/getform"]').waitFor({ timeout: 10_000 });
    const text = (await page.locator('body').textContent()) ?? '';
    for (const { url, description } of servers) {
      // Redoc shows a server's description as it is: Markdown markup would show as literal characters.
      expect(description, url).not.toMatch(/`|\*\*|\]\(/);
      expect(text, url).toContain(description.replace(/\s+/g, ' ').trim());
    }
  });

  it('when an operation page is screenshotted in Chromium, then the shot shows its curl sample and its response panel', async () => {
    const shotPage = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    try {
      await shotPage.goto(`${pageUrl}#/forms/getform`, { waitUntil: 'load' });
      const section = shotPage.locator('[id="forms/getform"]');
      await section.waitFor({ timeout: 10_000 });
      const getForm = bundledDocument().paths['/forms/{id}']!.get!;
      const curl = getForm['x-codeSamples']!.find((sample) => sample.label === 'curl')!.source.split('\n')[0]!;
      const sample = section.getByText(curl.slice(0, 20)).first();
      const responsePanel = section.getByText('Response', { exact: true }).first();
      const shot = await shotPage.screenshot({ path: path.join(root, 'dist/docs/get-form.png') });
      expect(shot.subarray(1, 4).toString('latin1')).toBe('PNG');
      for (const [what, locator] of [
        ['the curl sample', sample],
        ['the response panel', responsePanel],
      ] as const) {
        const box = await locator.boundingBox();
        expect(box, what).not.toBeNull();
        expect(box!.y + box!.height, `${what} inside the shot`).toBeLessThanOrEqual(1000);
        expect(box!.y, `${what} inside the shot`).toBeGreaterThanOrEqual(0);
      }
      expect((await sample.textContent()) ?? '').toMatch(/"\$\{FORM_FUNNEL_BASE_URL:-https:\/\/api\.form-funnel\.example\/v1\}\/forms\//);
    } finally {
      await shotPage.close();
    }
  });
});

interface BundledDocument {
  servers: Array<{ url: string; description: string }>;
  paths: Record<string, Record<string, { 'x-codeSamples'?: Array<{ label: string; source: string }> }>>;
}
const bundledDocument = (): BundledDocument => YAML.parse(readFileSync(bundledFile, 'utf8')) as BundledDocument;
