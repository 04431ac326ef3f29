// Vitest global setup of the `api` and `api-postgres` projects: builds the hosted page's browser files into
// dist/hosted/ (`npm run build:page`), which the app serves at /f/ and /embed.js. Once per run, like the bundle.
import { buildHostedAssets } from '../../src/hosted/build.js';

const builtThisRun = 'FORM_FUNNEL_TEST_PAGE_BUILT';

export default async function buildPage(): Promise<void> {
  if (process.env[builtThisRun] === '1') return;
  await buildHostedAssets();
  process.env[builtThisRun] = '1';
}
