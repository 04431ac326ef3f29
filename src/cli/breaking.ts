// The breaking-change gate (`npm run breaking`): the bundled document against the released v1 baseline.
//
//   node --import tsx src/cli/breaking.ts [--head dist/openapi.yaml] [--base openapi/baseline/openapi-v1.yaml]
//                                         [--work-dir dist/breaking] [--security-changes openapi/baseline/security-changes.yaml]
//                                         [--open-enums openapi/baseline/open-enums.yaml]
//
// Optic does the comparison, offline: `optic diff <base> <head> --check` with the rules in openapi/baseline/optic.yml (Optic's
// `breaking-changes` plus openapi/baseline/optic-rules/v1-rules.js). This script first prepares the two documents for Optic (webhooks
// as operations, repeated `allOf` properties merged, unchanged operations left out: see breaking-input.ts), then
// exits with Optic's status. Optic does not compare security requirements, so the gate also fails on any change
// to an operation's security requirement that the reviewed list does not acknowledge (security-changes.ts). Enums the
// document declares open may gain values (open-enums.ts).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import YAML from 'yaml';
import { prepareOpticInput, WEBHOOK_PREFIX } from './breaking-input.js';
import { parseOpenEnums, withoutOpenEnumAdditions } from './open-enums.js';
import { parseAcknowledgements, securityChanges, showRequirement, unacknowledged } from './security-changes.js';

const root = path.resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    head: { type: 'string', default: 'dist/openapi.yaml' },
    base: { type: 'string', default: 'openapi/baseline/openapi-v1.yaml' },
    'work-dir': { type: 'string', default: 'dist/breaking' },
    'security-changes': { type: 'string', default: 'openapi/baseline/security-changes.yaml' },
    'open-enums': { type: 'string', default: 'openapi/baseline/open-enums.yaml' },
  },
});

const read = (file: string) => YAML.parse(readFileSync(path.resolve(root, file), 'utf8')) as Record<string, unknown>;
const baseDocument = read(args.base);
const headDocument = read(args.head);
const openEnums = parseOpenEnums(readFileSync(path.resolve(root, args['open-enums']), 'utf8'));
const input = prepareOpticInput(baseDocument, withoutOpenEnumAdditions(baseDocument, headDocument, openEnums));

// Optic reports file positions in these two files; they stay for inspection after the run. JSON, not YAML: Optic's
// position mapper (a YAML AST parser) reads JSON text much faster than block YAML, which took a large share of
// the gate's time (same verdict and report either way).
const workDir = path.resolve(root, args['work-dir']);
mkdirSync(workDir, { recursive: true });
const baseFile = path.join(workDir, 'baseline.json');
const headFile = path.join(workDir, 'current.json');
writeFileSync(baseFile, `${JSON.stringify(input.base, null, 2)}\n`);
writeFileSync(headFile, `${JSON.stringify(input.head, null, 2)}\n`);

console.log(`Breaking-change gate: ${args.head} against the v1 baseline ${args.base}`);
console.log(`${input.changed.length} of ${input.total} operations added, removed or changed; Optic checks those.`);
if (input.changed.some((operation) => operation.includes(` ${WEBHOOK_PREFIX}`))) {
  console.log(`Webhooks appear as POST ${WEBHOOK_PREFIX}<event>: their payload is checked like a response.`);
}

const security = securityChanges(baseDocument, headDocument);
const unreviewed = unacknowledged(security, parseAcknowledgements(readFileSync(path.resolve(root, args['security-changes']), 'utf8')));
for (const change of security) {
  const verdict = unreviewed.includes(change) ? 'not acknowledged' : 'acknowledged';
  console.log(`${change.operation} (${change.operationId}): security requirement changed, ${verdict}`);
  console.log(`  before: ${showRequirement(change.before)}`);
  console.log(`  after:  ${showRequirement(change.after)}`);
}

const optic = createRequire(import.meta.url).resolve('@useoptic/optic');
const relative = (file: string) => path.relative(root, file);
const child = spawn(
  process.execPath,
  [optic, 'diff', relative(baseFile), relative(headFile), '--check', '--standard', 'openapi/baseline/optic.yml'],
  {
    cwd: root,
    stdio: 'inherit',
    // No telemetry, no error reports, no update check: the gate makes no network call.
    env: { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off', NO_UPDATE_NOTIFIER: '1' },
  },
);
// Stopping the gate stops Optic too (it can run for minutes when every operation changed).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));

child.on('exit', (code) => {
  const opticStatus = code ?? 1;
  if (unreviewed.length > 0) {
    console.error(
      [
        '',
        `Security requirement changed without review: ${unreviewed.map((change) => change.operationId).join(', ')}.`,
        `A loosened scope opens the operation to keys that should not reach it; a tightened one breaks clients. If the`,
        `change is intended, list it in ${args['security-changes']} with the requirement before and after and the reason.`,
      ].join('\n'),
    );
  }
  const status = opticStatus !== 0 ? opticStatus : unreviewed.length > 0 ? 1 : 0;
  if (status === 0) {
    console.log('No breaking change against the v1 baseline.');
  } else {
    console.error(
      [
        '',
        'Breaking change against the v1 baseline (details above). Within v1 only backwards-compatible additions',
        'are allowed: make the change additive, or keep it for v2. The baseline is re-frozen only when a v1 release',
        'is published: npm run baseline:freeze.',
      ].join('\n'),
    );
  }
  process.exit(status);
});
