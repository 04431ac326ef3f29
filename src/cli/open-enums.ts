/**
 * Enums the v1 document declares open (listed in openapi/baseline/open-enums.yaml): within v1 they may gain values,
 * such as a new error code or a new audit event type, and their descriptions tell clients to expect values they do
 * not know. Optic would report every new value of a response enum as breaking, so the gate shows it each open
 * enum with only the baseline's values that are still there: an added value passes, a removed one is still caught.
 */
import YAML from 'yaml';

type Json = Record<string, unknown>;

/**
 * The reviewed list (`open: [ErrorCode, AuditTarget.type, …]`): a schema name under components/schemas, or a
 * schema's property whose enum is declared inline (`Schema.property`).
 */
export function parseOpenEnums(text: string): string[] {
  const parsed = YAML.parse(text) as { open?: unknown } | null;
  const open = parsed?.open;
  if (!Array.isArray(open) || !open.every((name) => typeof name === 'string')) {
    throw new Error('open-enums.yaml must have `open:`, a list of schema names under components/schemas.');
  }
  return open;
}

const schemasOf = (doc: Json): Json => ((doc.components as Json | undefined)?.schemas as Json | undefined) ?? {};

const propertyOf = (schema: unknown, property: string): Json | undefined =>
  ((schema as Json | undefined)?.properties as Json | undefined)?.[property] as Json | undefined;

/** `enumHolder` with its values cut down to those of `before` (an added value dropped, a removed one kept out). */
function cutDown(enumHolder: Json | undefined, before: unknown): Json | undefined {
  const after = enumHolder?.enum;
  if (!enumHolder || !Array.isArray(before) || !Array.isArray(after)) return undefined;
  return { ...enumHolder, enum: after.filter((value) => before.includes(value)) };
}

/** `head` with each open enum's values cut down to those the baseline has: what Optic should compare. */
export function withoutOpenEnumAdditions(base: Json, head: Json, open: readonly string[]): Json {
  const baseSchemas = schemasOf(base);
  const headSchemas = { ...schemasOf(head) };
  for (const entry of open) {
    const [name, property] = entry.split('.', 2) as [string, string | undefined];
    if (property === undefined) {
      const cut = cutDown(headSchemas[name] as Json | undefined, (baseSchemas[name] as Json | undefined)?.enum);
      if (cut) headSchemas[name] = cut;
      continue;
    }
    const schema = headSchemas[name] as Json | undefined;
    const cut = cutDown(propertyOf(schema, property), propertyOf(baseSchemas[name], property)?.enum);
    if (schema && cut) headSchemas[name] = { ...schema, properties: { ...(schema.properties as Json), [property]: cut } };
  }
  return { ...head, components: { ...(head.components as Json), schemas: headSchemas } };
}
