/**
 * The OpenAPI document read straight from its source files (openapi/), for the tests that pin the code's
 * constants to it without a bundle. Each reader names a file (`'components/schemas/Plan'`, `'paths/forms'`,
 * `'openapi'`) and the keys down to a value, and fails naming what the document no longer has.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const files = new Map<string, unknown>();
const load = (file: string): unknown => {
  if (!files.has(file)) {
    files.set(file, parse(readFileSync(fileURLToPath(new URL(`../../openapi/${file}.yaml`, import.meta.url)), 'utf8')));
  }
  return files.get(file);
};

/** The value at `keys` in `file`. */
export function valueAt(file: string, ...keys: string[]): unknown {
  let node = load(file);
  for (const [index, key] of keys.entries()) {
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    if (node === undefined) throw new Error(`openapi/${file}.yaml has no ${keys.slice(0, index + 1).join(' > ')}, which this test reads`);
  }
  return node;
}

function typed<T>(file: string, keys: string[], what: string, check: (value: unknown) => boolean): T {
  const value = valueAt(file, ...keys);
  if (!check(value)) throw new Error(`openapi/${file}.yaml: ${keys.join(' > ')} is not ${what}`);
  return value as T;
}

export const textAt = (file: string, ...keys: string[]): string => typed(file, keys, 'text', (value) => typeof value === 'string');
export const numberAt = (file: string, ...keys: string[]): number => typed(file, keys, 'a number', (value) => typeof value === 'number');
export const listAt = (file: string, ...keys: string[]): string[] =>
  typed(file, keys, 'a list of words', (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'));
