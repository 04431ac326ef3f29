/**
 * Components of the OpenAPI document read straight from their source files (openapi/components/), for the tests
 * that pin the code's constants to the document without a bundle.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The parts of a schema, or of a response around one, that these tests read. */
export interface SchemaNode {
  description?: string;
  default?: unknown;
  pattern?: string;
  maxLength?: number;
  maximum?: number;
  maxItems?: number;
  properties?: Record<string, SchemaNode>;
  allOf?: SchemaNode[];
  content?: Record<string, { schema?: SchemaNode }>;
}

export const componentFile = (kind: 'schemas' | 'responses', name: string): SchemaNode =>
  parse(readFileSync(fileURLToPath(new URL(`../../openapi/components/${kind}/${name}.yaml`, import.meta.url)), 'utf8'));

/** The property of a schema, or an error naming the property the document no longer has. */
export function property(schema: SchemaNode | undefined, name: string): SchemaNode {
  const found = schema?.properties?.[name];
  if (!found) throw new Error(`the document no longer has the property ${name} this test reads`);
  return found;
}

/** A property of a component schema: `schemaProperty('IntegrationLog', 'attempt').maximum`. */
export const schemaProperty = (schema: string, name: string): SchemaNode => property(componentFile('schemas', schema), name);
