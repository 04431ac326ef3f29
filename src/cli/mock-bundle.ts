// Writes the mock's document (`npm run mock`, after `npm run bundle`): dist/openapi.mock.yaml from dist/openapi.yaml.
// Prism 5 ignores the path part of `servers[].url`, so a mock that answers under the production base path
// (`http://127.0.0.1:4010/v1`, like `https://api.form-funnel.example/v1`) needs path keys that carry the prefix.
// The mock also leaves out the version-lifecycle headers: Prism sends every declared header that has a schema,
// and while v1 is current production never sends them, so a client must not see them from the mock either. The
// same goes for `Idempotent-Replayed`, which only a replay carries: the mock never replays.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
export const bundledDocumentPath = path.join(root, 'dist/openapi.yaml');
export const mockDocumentPath = path.join(root, 'dist/openapi.mock.yaml');

/** Sent only once this version is deprecated (the document's "Versioning" section). */
export const lifecycleHeaders = ['Deprecation', 'Sunset', 'Link'] as const;
/** Declared, and never sent by the mock: the lifecycle headers, and the replay marker. */
const headersNotMocked: readonly string[] = [...lifecycleHeaders, 'Idempotent-Replayed'];

type Json = Record<string, unknown>;
interface Server {
  url: string;
}

/** The production base path, `/v1`: the path of the first server's URL (its host may be a variable). */
export function basePath(document: Json): string {
  const [production] = (document.servers ?? []) as Server[];
  if (!production) throw new Error('the document has no servers');
  return new URL(production.url.replace(/\{[^}]+\}/g, 'host.invalid')).pathname.replace(/\/$/, '');
}

export function mockDocument(document: Json): Json {
  const prefix = basePath(document);
  const mock = structuredClone(document);
  const paths = (mock.paths ?? {}) as Record<string, Json>;
  mock.paths = Object.fromEntries(Object.entries(paths).map(([key, item]) => [`${prefix}${key}`, item]));
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const responses = (operation as { responses?: Record<string, { headers?: Json }> }).responses ?? {};
      for (const response of Object.values(responses)) dropUnmockedHeaders(response.headers);
    }
  }
  for (const response of Object.values(((mock.components as Json | undefined)?.responses ?? {}) as Record<string, { headers?: Json }>)) {
    dropUnmockedHeaders(response.headers);
  }
  return mock;
}

function dropUnmockedHeaders(headers: Json | undefined): void {
  if (!headers) return;
  for (const name of Object.keys(headers)) {
    if (headersNotMocked.some((header) => header.toLowerCase() === name.toLowerCase())) delete headers[name];
  }
}

/**
 * Writes the mock's document from dist/openapi.yaml, to dist/openapi.mock.yaml unless told another file; returns
 * the base path the mock serves under. Prism watches the file it mocks and restarts when it changes, refusing
 * connections until it has loaded the document again: a mock that must not restart needs a file nobody rewrites.
 */
export function writeMockDocument(target = mockDocumentPath): string {
  const document = YAML.parse(readFileSync(bundledDocumentPath, 'utf8')) as Json;
  writeFileSync(target, YAML.stringify(mockDocument(document), { aliasDuplicateObjects: false }));
  return basePath(document);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const prefix = writeMockDocument();
  console.log(`Wrote ${path.relative(root, mockDocumentPath)}: the paths under ${prefix}, for Prism.`);
}
