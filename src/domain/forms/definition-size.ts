/**
 * The size of a form definition, in the bytes it takes serialized as JSON (UTF-8): what is stored for every
 * version and sent with every read of the form. The cap keeps a single request's parse, validation and
 * response under a few milliseconds of the shared event loop; the contract states the same number on
 * createForm and updateForm.
 */
import { unprocessable } from '../errors.js';
import type { FormDefinition } from '../schema-types.js';
import { bodyIssue, jsonPointer } from '../validation-issue.js';

export const MAX_DEFINITION_BYTES = 256 * 1024;

/** The stored text of a definition; its length is what the cap counts. */
export function serializeDefinition(definition: FormDefinition): string {
  return JSON.stringify({ steps: definition.steps, logic: definition.logic, scoring: definition.scoring });
}

export function definitionBytes(definition: FormDefinition): number {
  return Buffer.byteLength(serializeDefinition(definition), 'utf8');
}

/**
 * Throws 422 `form_too_large` when the definition is over the cap. The issue points at the largest of
 * `steps`, `logic` and `scoring`, the part a client most likely has to shrink.
 */
export function assertDefinitionFits(definition: FormDefinition): void {
  const bytes = definitionBytes(definition);
  if (bytes <= MAX_DEFINITION_BYTES) return;
  const parts = (['steps', 'logic', 'scoring'] as const).map((part) => ({
    part,
    bytes: Buffer.byteLength(JSON.stringify(definition[part]), 'utf8'),
  }));
  const largest = parts.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const pointer = jsonPointer(largest.part);
  throw unprocessable(
    'form_too_large',
    [
      bodyIssue(
        pointer,
        'definition_too_large',
        `the definition takes ${bytes} bytes of JSON, more than ${MAX_DEFINITION_BYTES}; ${pointer} takes ${largest.bytes} of them`,
      ),
    ],
    `The form definition takes ${bytes} bytes; at most ${MAX_DEFINITION_BYTES} are accepted.`,
  );
}
