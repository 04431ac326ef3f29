// Freezes the released v1 contract (`npm run baseline:freeze -- --reason "<why>"`, after `npm run bundle`): copies
// the bundled document to openapi/baseline/openapi-v1.yaml, which the breaking-change gate (`npm run breaking`)
// compares every later change with, and records the freeze with its reason in openapi/baseline/freezes.yaml. Run
// it when a v1 release is published (or for the one rename decided before publication), and commit both files.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import YAML from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const bundle = path.join(root, 'dist/openapi.yaml');
const baseline = path.join(root, 'openapi/baseline/openapi-v1.yaml');
const freezes = path.join(root, 'openapi/baseline/freezes.yaml');

const { values: args } = parseArgs({ options: { reason: { type: 'string' } } });
const reason = args.reason?.trim();
if (!reason) {
  console.error('Say why the baseline moves: npm run baseline:freeze -- --reason "<release or decision>"');
  process.exit(2);
}

const log = YAML.parseDocument(readFileSync(freezes, 'utf8'));
const frozenOn = new Date().toISOString().slice(0, 10);
log.addIn(['freezes'], { date: frozenOn, reason });
writeFileSync(freezes, log.toString({ lineWidth: 116 }));

const header = [
  '# The released v1 contract, bundled: the baseline of the breaking-change gate (npm run breaking).',
  '# Machine output: do not edit. Re-freeze it only when a v1 release is published: npm run baseline:freeze.',
  `# Last frozen ${frozenOn}; every freeze and its reason: openapi/baseline/freezes.yaml.`,
  '',
].join('\n');

mkdirSync(path.dirname(baseline), { recursive: true });
writeFileSync(baseline, header + readFileSync(bundle, 'utf8'));
console.log(`Froze ${path.relative(root, bundle)} as ${path.relative(root, baseline)}: commit it with freezes.yaml.`);
