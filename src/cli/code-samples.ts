// `npm run bundle`, after Redocly: adds the generated `x-codeSamples` (src/code-samples.ts) to both bundles.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { withCodeSamples } from '../code-samples.js';

const root = path.resolve(import.meta.dirname, '../..');
const bundles = { yaml: path.join(root, 'dist/openapi.yaml'), json: path.join(root, 'dist/openapi.json') };

const document = JSON.parse(readFileSync(bundles.json, 'utf8')) as Record<string, unknown>;
const sampled = withCodeSamples(document);
writeFileSync(bundles.json, `${JSON.stringify(sampled, null, 2)}\n`);
writeFileSync(bundles.yaml, YAML.stringify(sampled, { aliasDuplicateObjects: false, lineWidth: 0 }));
console.log('Added x-codeSamples (curl, TypeScript) to every operation and event of dist/openapi.yaml and dist/openapi.json.');
