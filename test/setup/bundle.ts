// Vitest global setup of the `api` project: `npm run bundle` once before the tests, so that the app, Prism and
// the breaking-change gate read the current document (dist/openapi.json, dist/openapi.yaml).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export default function bundle(): void {
  console.log('[setup] npm run bundle: bundling the document into dist/');
  const result = spawnSync('npm', ['run', 'bundle'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`npm run bundle failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}
