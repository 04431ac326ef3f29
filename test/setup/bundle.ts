// Vitest global setup of the `api` and `api-postgres` projects: `npm run bundle` once before the tests, so that the
// app, Prism and the breaking-change gate read the current document (dist/openapi.json, dist/openapi.yaml). Once per
// run: the projects' setups run in one process, and the `docs` project's (`npm run docs`) bundles too. `npm test` bundles
// in its lint step and says so (FORM_FUNNEL_TEST_BUNDLED=1), so its vitest run does not bundle again.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** Set in the run's process once the document is bundled (test/setup/build-docs.ts sets it too). */
export const bundledThisRun = 'FORM_FUNNEL_TEST_BUNDLED';

export default function bundle(): void {
  if (process.env[bundledThisRun] === '1') return;
  console.log('[setup] npm run bundle: bundling the document into dist/');
  const result = spawnSync('npm', ['run', 'bundle'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`npm run bundle failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  process.env[bundledThisRun] = '1';
}
