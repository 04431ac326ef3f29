/**
 * Enums the v1 document declares open (listed in openapi/baseline/open-enums.yaml): within v1 they may gain values,
 * such as a new error code or a new audit event type, and their descriptions tell clients to expect values they do
 * not know. Optic would report every new value of a response enum as breaking, so the gate shows it each open
 * enum with only the baseline's values that are still there: an added value passes, a removed one is still caught.
 */
import YAML from 'yaml';

type Json = Record<string, unknown>;

/** The schema names of the reviewed list (`open: [ErrorCode, …]`). */
export function parseOpenEnums(text: string): string[] {
  const parsed = YAML.parse(text) as { open?: unknown } | null;
  const open = parsed?.open;
  if (!Array.isArray(open) || !open.every((name) => typeof name === 'string')) {
    throw new Error('open-enums.yaml must have `open:`, a list of schema names under components/schemas.');
  }
  return open;
}

const schemasOf = (doc: Json): Json => ((doc.components as Json | undefined)?.schemas as Json | undefined) ?? {};

/** `head` with each open enum's values cut down to those the baseline has: what Optic should compare. */
export function withoutOpenEnumAdditions(base: Json, head: Json, open: readonly string[]): Json {
  const baseSchemas = schemasOf(base);
  const headSchemas = { ...schemasOf(head) };
  for (const name of open) {
    const before = (baseSchemas[name] as Json | undefined)?.enum;
    const after = (headSchemas[name] as Json | undefined)?.enum;
    if (!Array.isArray(before) || !Array.isArray(after)) continue;
    headSchemas[name] = { ...(headSchemas[name] as Json), enum: after.filter((value) => before.includes(value)) };
  }
  return { ...head, components: { ...(head.components as Json), schemas: headSchemas } };
}
