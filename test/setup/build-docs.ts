// Vitest global setup of the `docs` project: `npm run docs` once before the tests, so that they read the current bundled document
// (dist/openapi.yaml) and the docs page built from it (dist/docs/index.html).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { bundledThisRun } from './bundle.js';

const root = path.resolve(import.meta.dirname, '../..');

export default function buildDocs(): void {
  // Bundled already in this run (`npm test` bundles in its lint step; another project's setup may have): the page only.
  const script = process.env[bundledThisRun] === '1' ? 'docs:page' : 'docs';
  console.log(`[setup] npm run ${script}: ${script === 'docs' ? 'bundling the document and ' : ''}building dist/docs/index.html`);
  const result = spawnSync('npm', ['run', script], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`npm run ${script} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  // `npm run docs` bundles the document first: the API projects' setup need not do it again.
  process.env[bundledThisRun] = '1';
}
