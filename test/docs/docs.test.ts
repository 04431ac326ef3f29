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
    // What was refused (Redoc's "API docs by Redocly" logo) is decoration, never code or styles.
    expect(refused.filter((request) => /^(script|stylesheet|font) /.test(request))).toEqual([]);
    console.log(`docs: ${operations.length} operations and webhooks rendered offline; ${refused.length} network request(s) refused`);
  }, 180_000);
});
