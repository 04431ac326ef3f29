// Freezes the released v1 contract (`npm run baseline:freeze`, after `npm run bundle`): copies the bundled
// document to openapi/baseline/openapi-v1.yaml, which the breaking-change gate (`npm run breaking`) compares
// every later change with. Run it when a v1 release is published, and commit the result.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const bundle = path.join(root, 'dist/openapi.yaml');
const baseline = path.join(root, 'openapi/baseline/openapi-v1.yaml');

const header = [
  '# The released v1 contract, bundled: the baseline of the breaking-change gate (npm run breaking).',
  '# Machine output: do not edit. Re-freeze it only when a v1 release is published: npm run baseline:freeze.',
  '',
].join('\n');

mkdirSync(path.dirname(baseline), { recursive: true });
writeFileSync(baseline, header + readFileSync(bundle, 'utf8'));
console.log(`Froze ${path.relative(root, bundle)} as ${path.relative(root, baseline)}: commit it.`);
