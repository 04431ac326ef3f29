/**
 * `npm run bench:page`: the hosted form page's budgets, printed, never asserted (figures depend on the machine).
 * - Size: the page's JavaScript (page script, proof-of-work worker and the largest of the language files, of which a
 *   page loads at most one) and CSS, gzipped, against 40 KB and 10 KB.
 * - Speed: from navigation to the first step on screen (the page's `form-funnel:first-step` mark, with Chromium's
 *   first contentful paint beside it), in headless Chromium against the real app over TLS on localhost, RUNS times
 *   (default 7) each in a fresh browser context (nothing cached), against 300 ms.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { buildHostedAssets } from '../../src/hosted/build.js';
import { startDemoServer } from '../../src/hosted/demo-server.js';
import { loadedLanguages } from '../../src/hosted/languages.js';
import { catalogueAsset, hostedAssetsDir } from '../../src/hosted/manifest.js';
import { chromiumLaunchOptions } from '../support/chromium.js';
import { median } from './median.js';

const RUNS = Number(process.env.RUNS ?? 7);
const budgets = { jsKb: 40, cssKb: 10, firstStepMs: 300 };

const manifest = await buildHostedAssets();
const dir = join(import.meta.dirname, '../..', hostedAssetsDir);
const gzippedKb = (...files: string[]) =>
  files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file)), { level: 9 }).length, 0) / 1024;
const catalogueKb = Math.max(...loadedLanguages.map((language) => gzippedKb(manifest[catalogueAsset(language)])));
const jsKb = gzippedKb(manifest['page.js'], manifest['worker.js']) + catalogueKb;
const cssKb = gzippedKb(manifest['page.css']);
const embedKb = gzippedKb(manifest['embed.js']);

const { base, form, close } = await startDemoServer();

const browser = await chromium.launch(chromiumLaunchOptions);
const firstStep: number[] = [];
const firstPaint: number[] = [];
const firstByte: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${base}/f/${form.id}`);
  await page.waitForFunction("performance.getEntriesByName('form-funnel:first-step').length > 0");
  const [step, paint, byte] = (await page.evaluate(
    "[performance.getEntriesByName('form-funnel:first-step')[0].startTime, performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, performance.getEntriesByType('navigation')[0].responseStart]",
  )) as [number, number, number];
  firstStep.push(step);
  firstByte.push(byte);
  firstPaint.push(paint);
  await context.close();
}
await browser.close();
await close();

const row = (name: string, value: string, budget: string, within: boolean) =>
  `${name.padEnd(46)} ${value.padStart(10)}   budget ${budget.padEnd(8)} ${within ? 'within' : 'OVER'}`;
const steady = firstStep.slice(1);
console.log(`Hosted form page (${new Date().toISOString()}, ${RUNS} runs, first run includes Chromium's warm-up)`);
console.log(row('JavaScript, gzipped (page + worker + language)', `${jsKb.toFixed(1)} KB`, `${budgets.jsKb} KB`, jsKb <= budgets.jsKb));
console.log(row('CSS, gzipped', `${cssKb.toFixed(1)} KB`, `${budgets.cssKb} KB`, cssKb <= budgets.cssKb));
console.log(row('embed.js, gzipped', `${embedKb.toFixed(1)} KB`, '-', true));
console.log(
  row(
    'first step, median of later runs',
    `${median(steady).toFixed(0)} ms`,
    `${budgets.firstStepMs} ms`,
    median(steady) <= budgets.firstStepMs,
  ),
);
console.log(
  row(
    'first step, slowest run',
    `${Math.max(...firstStep).toFixed(0)} ms`,
    `${budgets.firstStepMs} ms`,
    Math.max(...firstStep) <= budgets.firstStepMs,
  ),
);
console.log(row("page's first byte, median", `${median(firstByte.slice(1)).toFixed(0)} ms`, '-', true));
console.log(row('first contentful paint, median', `${median(firstPaint.slice(1)).toFixed(0)} ms`, '-', true));
