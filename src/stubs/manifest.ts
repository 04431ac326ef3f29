/**
 * `.stubs.json`, the stub project's manifest: the hashes of what the generator wrote, so that regenerating never
 * overwrites what the implementer changed. It is read whole and checked whole before anything is regenerated: a
 * manifest that is not one (edited by hand, merged badly) stops the update with what is wrong in it, since guessing
 * would either overwrite the implementer's work or keep stale generated files forever.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';

export const manifestName = '.stubs.json';

export interface Manifest {
  note: string;
  /** Whether untouched handlers answer their documented example (a project made with `--examples`). */
  examples: boolean;
  /** Support file (relative path) → sha256 of the text generated for it; `''` when the implementer changed it. */
  files: Record<string, string>;
  /** operationId → sha256 of the handler statement generated for it; `''` when the implementer changed it. */
  handlers: Record<string, string>;
}

const hashes = { type: 'object', additionalProperties: { type: 'string', pattern: '^([0-9a-f]{64})?$' } } as const;

const validateManifest = new Ajv2020({ allErrors: true }).compile<Manifest>({
  type: 'object',
  required: ['examples', 'files', 'handlers'],
  properties: { note: { type: 'string' }, examples: { type: 'boolean' }, files: hashes, handlers: hashes },
});

/** Thrown when the project's manifest cannot be used; the message says what is wrong and what to do. */
export class ManifestError extends Error {}

/** The project's manifest, or undefined when it has none (a new project). */
export function readManifest(out: string): Manifest | undefined {
  const path = join(out, manifestName);
  if (!existsSync(path)) return undefined;
  const unusable = (what: string) =>
    new ManifestError(
      `${path} is not a stub manifest the generator can use: ${what}. Nothing was written. Restore the file from ` +
        'version control (or from a copy) and run again; it records which files and handlers are still as generated.',
    );
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw unusable(`it is not JSON (${(error as Error).message})`);
  }
  if (!validateManifest(value)) {
    const issues = (validateManifest.errors ?? []).map((error) => `${error.instancePath || 'the manifest'} ${error.message}`);
    throw unusable([...new Set(issues)].join('; '));
  }
  return value;
}
