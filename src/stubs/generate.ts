/**
 * Generates a standalone server project from the contract: the bundled document, types generated from it, the
 * pipeline (request ids, routing, bearer keys, validation, problems) and one handler per operation, grouped per tag.
 * Regenerating (`update`) rewrites what is generated, adds handlers for new operations and keeps every file and
 * handler the implementer changed, which it recognises by the hashes kept in the project's manifest. Everything is
 * worked out first and checked (a readable manifest, no path that is a link) before the first file is written.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { bundleContract } from './contract-source.js';
import {
  exportedHandlers,
  type HandlerMode,
  handlerComment,
  handlerFileHeader,
  handlerFileName,
  handlerStatement,
  type StubOperation,
} from './handler-source.js';
import { type Manifest, manifestName, readManifest } from './manifest.js';
import { stubPackageJson } from './package-json.js';
import { assertWritable, writeProjectFile } from './project-files.js';
import { type OpenApiDocument, readOperations } from './template/src/contract.js';
import { readExamples } from './template/src/examples.js';

export interface StubOptions {
  /** The project directory: created, or regenerated with `update`. */
  out: string;
  /** Handlers answer their operation's documented example instead of 501 (on update: as the project was made). */
  examples?: boolean;
  /** Regenerate into an existing stub project. */
  update?: boolean;
  /** The contract; bundled from openapi/ when omitted. */
  document?: OpenApiDocument;
  /** The directory of the project template (support files); the generator's own template when omitted. */
  templateDir?: URL;
}

export interface StubReport {
  out: string;
  /** Files written (relative to `out`). */
  written: string[];
  /** Support files kept because the implementer changed them. */
  keptFiles: string[];
  /** Handlers generated for operations the project did not have. */
  addedHandlers: string[];
  /** Handlers kept because the implementer changed them. */
  keptHandlers: string[];
  /** Handlers of operations the contract no longer has (kept: delete them). */
  disappeared: Array<{ operationId: string; file: string }>;
  /** With `examples`: operations without a documented success example, which answer 501 instead. */
  withoutExample: string[];
}

const templateDir = new URL('./template/', import.meta.url);

/** Copied from the template when absent, and rewritten on update unless the implementer changed them. */
const supportFiles = [
  'tsconfig.json',
  'README.md',
  'src/app.ts',
  'src/auth.ts',
  'src/contract.ts',
  'src/examples.ts',
  'src/handler-types.ts',
  'src/problem.ts',
  'src/server.ts',
  'src/validator.ts',
  'test/app.test.ts',
];

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

export async function generateStubs(options: StubOptions): Promise<StubReport> {
  const out = options.out;
  const previous = readManifest(out);
  if (options.update && !previous) throw new Error(`${out} is not a stub project (no ${manifestName}); generate one without --update.`);
  if (!options.update && existsSync(out) && readdirSync(out).length > 0) {
    throw new Error(`${out} is not empty; pass --update to regenerate a stub project in it.`);
  }

  // Regenerating keeps the project's kind (501 stubs or example answers) unless told otherwise.
  const examples = options.examples ?? previous?.examples ?? false;
  const document = options.document ?? (await bundleContract());
  const operations = stubOperations(document);
  const exampleIds = examples ? new Set(readExamples(document).keys()) : new Set<string>();
  const modeOf = (operationId: string): HandlerMode => (exampleIds.has(operationId) ? 'example' : 'not_implemented');
  const report: StubReport = { out, written: [], keptFiles: [], addedHandlers: [], keptHandlers: [], disappeared: [], withoutExample: [] };
  if (examples) report.withoutExample = operations.map((operation) => operation.operationId).filter((id) => !exampleIds.has(id));
  const manifest: Manifest = {
    note: 'Written by the stub generator: hashes of what it generated, so that regenerating never overwrites your changes.',
    examples,
    files: {},
    handlers: {},
  };

  // Path → text, written only once every path has been checked.
  const pending = new Map<string, string>();
  const write = (path: string, text: string) => {
    pending.set(path, text);
    report.written.push(path);
  };
  /** A file the implementer may change: written when absent or still as generated, kept otherwise. */
  const writeUnlessChanged = (path: string, text: string) => {
    const current = existsSync(join(out, path)) ? readFileSync(join(out, path), 'utf8') : undefined;
    if (current !== undefined && previous?.files[path] !== hash(current)) {
      report.keptFiles.push(path);
      // Still recorded as changed: a later update must keep it too.
      manifest.files[path] = previous?.files[path] ?? '';
      return;
    }
    if (current !== text) write(path, text);
    manifest.files[path] = hash(text);
  };

  write('openapi/openapi.json', `${JSON.stringify(document, null, 2)}\n`);
  // A copy: openapi-typescript writes into the document it is given (descriptions of discriminator properties).
  write('src/generated/openapi.d.ts', COMMENT_HEADER + astToString(await openapiTS(structuredClone(document) as never)));
  write('src/generated/security.ts', openOperations(document));
  for (const path of supportFiles) writeUnlessChanged(path, readFileSync(new URL(path, options.templateDir ?? templateDir), 'utf8'));
  writeUnlessChanged('package.json', stubPackageJson());
  writeUnlessChanged('.gitignore', 'node_modules/\ndata/\n');

  const locations = writeHandlers(out, operations, modeOf, previous, manifest, report, write);
  write('src/handlers/index.ts', handlerIndex(operations, locations));
  write(manifestName, `${JSON.stringify(manifest, null, 2)}\n`);
  assertWritable(out, pending.keys());
  // The manifest last: a run stopped half-way leaves the previous one, so a file it had just regenerated is at worst
  // taken for the implementer's and kept, never the other way round.
  for (const [path, text] of pending) writeProjectFile(out, path, text);
  return report;
}

/** The operations anyone may call (a security requirement that is empty or lists nothing), as a type. */
function openOperations(document: OpenApiDocument): string {
  const open = readOperations(document)
    .filter(
      (operation) => operation.security.length === 0 || operation.security.some((requirement) => Object.keys(requirement).length === 0),
    )
    .map((operation) => `'${operation.operationId}'`)
    .sort();
  return [
    '// Auto-generated by the stub generator from the contract; do not make direct changes to this file.',
    '// Operations anyone may call (`security: []`): their handlers may get no key.',
    `export type OpenOperation = ${open.join(' | ') || 'never'};`,
    '',
  ].join('\n');
}

/** In the order the contract lists them (readOperations orders them for routing). */
function stubOperations(document: OpenApiDocument): StubOperation[] {
  const paths = Object.keys(document.paths);
  const documentOrder = (operation: { path: string }) => paths.indexOf(operation.path);
  const operations = readOperations(document).sort((a, b) => documentOrder(a) - documentOrder(b));
  return operations.map((operation) => {
    const { tags, summary } = operation as unknown as { tags?: string[]; summary?: string };
    return { operationId: operation.operationId, method: operation.method, path: operation.path, tag: tags?.[0] ?? 'untagged', summary };
  });
}

/** Writes the handler files; answers, for each operation, the file (under src/handlers/) whose export is its handler. */
function writeHandlers(
  out: string,
  operations: readonly StubOperation[],
  modeOf: (operationId: string) => HandlerMode,
  previous: Manifest | undefined,
  manifest: Manifest,
  report: StubReport,
  write: (path: string, text: string) => void,
): Map<string, string> {
  const handlersDir = join(out, 'src/handlers');
  const sources = new Map<string, string>();
  if (existsSync(handlersDir)) {
    for (const name of readdirSync(handlersDir)) {
      if (name.endsWith('.ts') && name !== 'index.ts') sources.set(name, readFileSync(join(handlersDir, name), 'utf8'));
    }
  }
  const wanted = new Map(operations.map((operation) => [operation.operationId, operation]));
  const locations = new Map<string, string>();
  const changed = new Set<string>();

  for (const [file, source] of sources) {
    let text = source;
    // From the end, so that replacing one statement leaves the offsets of the earlier ones valid.
    for (const found of exportedHandlers(file, source).reverse()) {
      const operation = wanted.get(found.name);
      if (!operation) {
        if (found.typedAsHandler || previous?.handlers[found.name])
          report.disappeared.push({ operationId: found.name, file: `src/handlers/${file}` });
        continue;
      }
      if (locations.has(found.name)) continue;
      locations.set(found.name, file);
      if (previous?.handlers[found.name] !== hash(found.text)) {
        report.keptHandlers.push(found.name);
        manifest.handlers[found.name] = previous?.handlers[found.name] ?? '';
        continue;
      }
      const statement = handlerStatement(operation, modeOf(found.name));
      manifest.handlers[found.name] = hash(statement);
      if (statement !== found.text) text = text.slice(0, found.start) + statement + text.slice(found.end);
    }
    if (text !== source) {
      sources.set(file, text);
      changed.add(file);
    }
  }

  for (const operation of operations) {
    if (locations.has(operation.operationId)) continue;
    const file = handlerFileName(operation.tag);
    const statement = handlerStatement(operation, modeOf(operation.operationId));
    const before = sources.get(file) ?? handlerFileHeader(operation.tag);
    sources.set(file, `${before}\n${handlerComment(operation)}\n${statement}\n`);
    changed.add(file);
    locations.set(operation.operationId, file);
    manifest.handlers[operation.operationId] = hash(statement);
    if (previous) report.addedHandlers.push(operation.operationId);
  }
  for (const file of changed) write(`src/handlers/${file}`, sources.get(file)!);
  report.keptHandlers.reverse();
  return locations;
}

function handlerIndex(operations: readonly StubOperation[], locations: ReadonlyMap<string, string>): string {
  const byFile = new Map<string, string[]>();
  for (const operation of operations) {
    const file = locations.get(operation.operationId)!;
    byFile.set(file, [...(byFile.get(file) ?? []), operation.operationId]);
  }
  const imports = [...byFile.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, names]) => {
      const from = `from './${file.replace(/\.ts$/, '.js')}';`;
      const oneLine = `import { ${[...names].sort().join(', ')} } ${from}`;
      return oneLine.length <= 120 ? oneLine : ['import {', ...[...names].sort().map((name) => `  ${name},`), `} ${from}`].join('\n');
    });
  return [
    '// Auto-generated by the stub generator (`npm run stubs -- --update`); do not make direct changes to this file.',
    '// Every operation of the contract and the file of src/handlers/ that exports its handler: `satisfies Handlers`',
    '// makes a missing or mistyped handler a compile error.',
    "import type { Handlers } from '../handler-types.js';",
    ...imports,
    '',
    'export const handlers = {',
    ...operations.map((operation) => `  ${operation.operationId},`),
    '} satisfies Handlers;',
    '',
  ].join('\n');
}
