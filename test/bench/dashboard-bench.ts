/**
 * `npm run bench:dashboard`: the dashboard's budgets, printed, never asserted (figures depend on the machine).
 * - Size: the dashboard's JavaScript and CSS, gzipped, against 120 KB and 20 KB.
 * - Speed, in headless Chromium against the real app over TLS on localhost, RUNS times (default 7), each in a fresh
 *   browser context signed in beforehand (not timed), against 500 ms:
 *   - first screen: from opening /dashboard/forms in a new tab to its forms listed. This includes the sign-in round
 *     trip (the consent page's redirect with a code, the token exchange), `GET /me` and `GET /forms`.
 *   - reload: the same tab reloaded (the refresh token instead of a new authorization).
 *   Beside them, the baseline: what a person would write instead, a plain page on the same origin that fetches
 *   `GET /v1/forms` with a key and writes a table; the dashboard's ratio to it is printed.
 * SQLite store (the default of `npm start`); BENCH_FORMS forms in the workspace (default 20).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { ensureAccount } from '../../src/domain/people/accounts.js';
import { signInLinkFor } from '../../src/domain/people/links.js';
import { buildHostedAssets } from '../../src/hosted/build.js';
import { hostedAssetsDir } from '../../src/hosted/manifest.js';
import { chromiumLaunchOptions } from '../support/chromium.js';
import { createTestApi } from '../support/harness.js';
import { median } from './median.js';

const RUNS = Number(process.env.RUNS ?? 7);
const FORMS = Number(process.env.BENCH_FORMS ?? 20);
const budgets = { jsKb: 120, cssKb: 20, firstScreenMs: 500 };

const manifest = await buildHostedAssets();
const dir = join(import.meta.dirname, '../..', hostedAssetsDir);
const gzippedKb = (...files: string[]) =>
  files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file)), { level: 9 }).length, 0) / 1024;
const jsKb = gzippedKb(manifest['dashboard.js']);
const cssKb = gzippedKb(manifest['dashboard.css']);

let site = '';
// Limits that a bench's own requests never meet (the test helpers' generous limits, which import the test runner).
const rateLimits = {
  perKeyPerSecond: 100_000,
  perWorkspacePerMinute: 1_000_000,
  failedAuthPerAddressPerMinute: 100_000,
  publicPerAddressPerMinute: 100_000,
};
const api = await createTestApi({ rateLimits, localBaseUrl: () => site });
site = api.baseUrl.replace('127.0.0.1', 'localhost');
for (let index = 0; index < FORMS; index++) {
  const res = await api.call('post', '/v1/forms').send({ name: `Form ${index + 1}` });
  if (res.status !== 201) throw new Error(`creating a form: ${res.status} ${res.text}`);
}
const key = api.workspace.live_admin_key;

/** The plain page a person would write instead: one fetch, one table (served by the browser's router, same origin). */
const baseline = `<!doctype html><meta charset="utf-8"><title>Forms</title><main><h1>Forms</h1></main><script>
fetch('/v1/forms', { headers: { Authorization: 'Bearer ${key}' } }).then((r) => r.json()).then((list) => {
  const table = document.createElement('table');
  for (const form of list.data) { const row = table.insertRow(); row.insertCell().textContent = form.name; }
  document.querySelector('main').append(table);
  document.body.dataset.ready = 'yes';
});
</script>`;

const browser = await chromium.launch({
  ...chromiumLaunchOptions,
  args: [...(chromiumLaunchOptions.args ?? []), '--host-resolver-rules=MAP localhost 127.0.0.1'],
});

/** The forms screen is on screen: its heading, a row of its table, no "Loading" left (locators: no eval under the CSP). */
async function formsListed(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Forms' }).waitFor();
  await page.locator('main table tbody tr').first().waitFor();
  await page
    .locator('main [role=status]', { hasText: /^Loading/ })
    .first()
    .waitFor({ state: 'detached' });
}

const firstScreen: number[] = [];
const reload: number[] = [];
const plain: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
  await page.goto(link.url);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(/\/account/);

  let started = performance.now();
  await page.goto(`${site}/dashboard/forms`);
  await formsListed(page);
  firstScreen.push(performance.now() - started);

  started = performance.now();
  await page.reload();
  await formsListed(page);
  reload.push(performance.now() - started);

  await page.route(`${site}/bench-baseline`, (route) => route.fulfill({ contentType: 'text/html', body: baseline }));
  started = performance.now();
  await page.goto(`${site}/bench-baseline`);
  await page.waitForFunction("document.body.dataset.ready === 'yes'");
  plain.push(performance.now() - started);
  await context.close();
}
await browser.close();
await api.close();

const row = (name: string, value: string, budget: string, within: boolean) =>
  `${name.padEnd(44)} ${value.padStart(10)}   budget ${budget.padEnd(8)} ${within ? 'within' : 'OVER'}`;
const steady = (values: number[]) => median(values.slice(1));
console.log(`Dashboard (${new Date().toISOString()}, ${RUNS} runs, ${FORMS} forms; the first run includes Chromium's warm-up)`);
console.log(row('JavaScript, gzipped', `${jsKb.toFixed(1)} KB`, `${budgets.jsKb} KB`, jsKb <= budgets.jsKb));
console.log(row('CSS, gzipped', `${cssKb.toFixed(1)} KB`, `${budgets.cssKb} KB`, cssKb <= budgets.cssKb));
for (const [name, values] of [
  ['first screen (new tab, sign-in round trip)', firstScreen],
  ['reload (refresh token)', reload],
] as const) {
  const value = steady(values);
  console.log(row(`${name}, median`, `${value.toFixed(0)} ms`, `${budgets.firstScreenMs} ms`, value <= budgets.firstScreenMs));
  console.log(`${''.padEnd(44)} ${`${(value / steady(plain)).toFixed(2)}x`.padStart(10)}   the plain page's time`);
}
console.log(row('plain page: one fetch, one table, median', `${steady(plain).toFixed(0)} ms`, '-', true));
