/**
 * Schema-driven fuzzing: for every operation of the bundled document, values generated from its own query,
 * path and body schemas, then the same values mutated the way a hostile or careless client would (wrong
 * types, huge numbers, NaN-like text, deep nesting, control characters, unpaired surrogates, overlong strings,
 * unknown properties). Whatever arrives, the answer is never a 5xx and always a status the operation declares.
 * FUZZ_RUNS raises the number of cases per operation and kind (valid, mutated) for a longer local run.
 */
import https from 'node:https';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../src/http/contract-document.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: 'query' | 'path' | 'header'; required?: boolean; schema: Schema };
type OperationObject = {
  operationId: string;
  parameters?: Schema[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
};

const runs = Number(process.env.FUZZ_RUNS ?? 10);
const { document } = loadContract();

const api = useWatchedApi({ rateLimits: generousLimits });
// One TLS connection reused for the whole run: a handshake per case would cost more than the case. (After hooks
// run in reverse order: the connection is closed before the API.)
let keepAlive: https.Agent;
beforeAll(() => {
  keepAlive = new https.Agent({ keepAlive: true, maxSockets: 1, ca: api.certificate });
});
afterAll(() => {
  keepAlive.destroy();
});

function resolve(node: Schema): Schema {
  let current = node;
  while (typeof current.$ref === 'string') {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((parent, key) => (parent as Record<string, unknown>)[key], document) as Schema;
  }
  return current;
}

/**
 * Strings of a pattern within the schema's lengths. fast-check's `stringMatching` knows no lengths, and a filter on
 * them spins for ever when they are almost never met (`^[0-9A-Za-z_]+$` with `minLength: 20` yields short strings):
 * then matches are joined into longer ones and checked again, and a pattern neither way meets fails the run by name.
 */
function patternedString(pattern: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  const expression = new RegExp(pattern, 'u');
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength && expression.test(text);
  const single = fc.stringMatching(expression);
  const joined = fc.array(single, { minLength: 1, maxLength: Math.max(2, Math.ceil(minLength / 2)) }).map((parts) => parts.join(''));
  for (const candidate of [single, joined]) {
    if (fc.sample(candidate, { numRuns: 200, seed: 1 }).some(fits)) return candidate.filter(fits);
  }
  throw new Error(`no generator meets the pattern ${pattern} with lengths ${minLength} to ${maxLength}: give the fuzzer one`);
}

/** Past this depth generation stops: optional members are left out and recursive unions take a leaf branch. */
const maxGenerationDepth = 6;
class TooDeep extends Error {}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 40, 40);
  const minLength = (schema.minLength as number | undefined) ?? 0;
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress().filter((email) => email.length <= ((schema.maxLength as number | undefined) ?? 254));
    case 'uri':
      return fc.constantFrom(
        'https://hooks.example.com/form-funnel',
        'https://127.0.0.1/hook',
        'https://[::1]/x',
        'https://example.invalid/',
      );
  }
  if (typeof schema.pattern === 'string')
    return patternedString(schema.pattern, minLength, (schema.maxLength as number | undefined) ?? 1000);
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength), unit: 'grapheme' });
}

function arbitraryFor(node: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(node);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const branches = ((schema.oneOf ?? schema.anyOf) as Schema[]).flatMap((branch) => {
      try {
        return [arbitraryFor(branch, depth + 1)];
      } catch (error) {
        if (error instanceof TooDeep) return [];
        throw error;
      }
    });
    if (branches.length === 0) throw new TooDeep();
    return fc.oneof(...branches);
  }
  if (Array.isArray(schema.allOf)) {
    const [first] = schema.allOf as Schema[];
    return arbitraryFor({ ...resolve(first!), ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'allOf')) }, depth);
  }
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((candidate) => candidate !== 'null')
    : (schema.type as string | undefined);
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({
        min: Math.max((schema.minimum as number | undefined) ?? -1000, -1e9),
        max: Math.min((schema.maximum as number | undefined) ?? 1000, 1e9),
      });
    case 'number':
      return fc.double({
        min: (schema.minimum as number | undefined) ?? -1000,
        max: (schema.maximum as number | undefined) ?? 1000,
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minItems = (schema.minItems as number | undefined) ?? 0;
      if (depth > maxGenerationDepth) {
        if (minItems > 0) throw new TooDeep();
        return fc.constant([]);
      }
      const items = arbitraryFor((schema.items as Schema | undefined) ?? {}, depth + 1);
      return fc.array(items, {
        minLength: minItems,
        maxLength: Math.max(minItems, Math.min((schema.maxItems as number | undefined) ?? 3, 3)),
      });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      if (depth > maxGenerationDepth && required.size > 0) throw new TooDeep();
      const members: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (depth > maxGenerationDepth && !required.has(name)) continue;
        members[name] = arbitraryFor(property, depth + 1);
      }
      const record = fc.record(members, { requiredKeys: [...required].filter((name) => name in members) });
      const additional = schema.additionalProperties;
      if (additional && typeof additional === 'object' && depth <= maxGenerationDepth) {
        return fc
          .tuple(
            record,
            fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/), arbitraryFor(additional as Schema, depth + 1), { maxKeys: 3 }),
          )
          .map(([known, extra]) => ({ ...extra, ...known }));
      }
      return record;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** What hostile and careless clients send instead of a valid value. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53 + 1,
    [],
    {},
    [[]],
    'NaN',
    'Infinity',
    '-Infinity',
    '1e309',
    '0x10',
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\u0007bell',
    'line\nbreak',
    '\u202Eevil',
    '\ud800',
    'pair \ud83d\ude80',
    '%00',
    '../../etc',
    "' OR 1=1 --",
    '__proto__',
    'x'.repeat(100_000),
  ),
  fc.integer({ min: 1, max: 100 }).map((levels) => JSON.parse('['.repeat(levels) + ']'.repeat(levels)) as unknown),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Replaces one value somewhere in `value` (or the whole of it), or adds an unknown property to an object. */
function mutate(value: unknown, choices: number[], replacement: unknown): unknown {
  const [choice = 0, ...rest] = choices;
  if (Array.isArray(value) && value.length > 0 && choice % 3 !== 0) {
    const copy = [...value];
    copy[choice % value.length] = mutate(copy[choice % value.length], rest, replacement);
    return copy;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (choice % 5 === 1) return { ...value, [`unknown_${choice}`]: replacement };
    if (keys.length > 0 && choice % 5 !== 0) {
      const key = keys[choice % keys.length]!;
      return { ...value, [key]: mutate((value as Record<string, unknown>)[key], rest, replacement) };
    }
  }
  return replacement;
}

/** Query and path text: valid values as text, or text a parser might misread. */
const hostileText = fc.constantFrom(
  '1e309',
  'Infinity',
  '-1',
  '0',
  '0x10',
  ' 5',
  '5.5',
  '',
  'true',
  '%00',
  '%E0%A4',
  '%2F..%2F',
  '\u0000',
  'x'.repeat(5000),
  'form_AAAAAAAAAAAAAAAAAAAAAAAA',
);

interface Case {
  path: Record<string, string>;
  query: Array<[string, string]>;
  body: unknown;
}

type Slot = { kind: 'path' | 'query'; name: string } | { kind: 'body' } | { kind: 'unknown_query' } | { kind: 'repeated_query' };

/**
 * Valid cases fill every path parameter, some query parameters and the body from their schemas. A mutated
 * case is a minimal valid one (required parameters only) with exactly one hostile change, so the change is
 * what the server judges rather than being hidden behind another error.
 */
function caseFor(parameters: Parameter[], bodySchema: Schema | undefined, mutated: boolean): fc.Arbitrary<Case> {
  const text = (parameter: Parameter) => arbitraryFor(parameter.schema).map((value) => String(value)) as fc.Arbitrary<string>;
  const pathParams = parameters.filter((parameter) => parameter.in === 'path');
  const queryParams = parameters.filter((parameter) => parameter.in === 'query');
  const path = fc.record(Object.fromEntries(pathParams.map((parameter) => [parameter.name, text(parameter)]))) as fc.Arbitrary<
    Record<string, string>
  >;
  const query = fc
    .tuple(
      ...queryParams
        .filter((parameter) => !mutated || parameter.required)
        .map((parameter) =>
          fc
            .option(text(parameter), { nil: undefined, freq: parameter.required ? 1_000_000 : 1 })
            .map((value) => (value === undefined ? [] : ([[parameter.name, value]] as Array<[string, string]>))),
        ),
    )
    .map((lists) => lists.flat());
  const body = bodySchema ? arbitraryFor(bodySchema) : fc.constant(undefined);
  const valid = fc.record({ path, query, body });
  if (!mutated) return valid;

  const slots: Slot[] = [
    ...pathParams.map((parameter): Slot => ({ kind: 'path', name: parameter.name })),
    ...queryParams.map((parameter): Slot => ({ kind: 'query', name: parameter.name })),
    ...(bodySchema ? Array.from({ length: 3 }, (): Slot => ({ kind: 'body' })) : []),
    { kind: 'unknown_query' },
    ...(queryParams.length > 0 ? [{ kind: 'repeated_query' } as Slot] : []),
  ];
  return fc
    .tuple(valid, fc.constantFrom(...slots), hostileText, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), hostileValue)
    .map(([base, slot, hostile, choices, replacement]) => {
      const changed: Case = { path: { ...base.path }, query: [...base.query], body: base.body };
      if (slot.kind === 'path') changed.path[slot.name] = hostile;
      if (slot.kind === 'query') changed.query = [...changed.query.filter(([name]) => name !== slot.name), [slot.name, hostile]];
      if (slot.kind === 'body') changed.body = mutate(base.body ?? {}, choices, replacement);
      if (slot.kind === 'unknown_query') changed.query.push(['unknown', hostile]);
      if (slot.kind === 'repeated_query') changed.query.push([queryParams[0]!.name, '1'], [queryParams[0]!.name, '2']);
      return changed;
    });
}

const operations = Object.entries(document.paths).flatMap(([template, item]) =>
  (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((method) => {
    const operation = item[method] as OperationObject | undefined;
    if (!operation) return [];
    const parameters = [...((item.parameters as Schema[] | undefined) ?? []), ...(operation.parameters ?? [])].map(
      (parameter) => resolve(parameter) as unknown as Parameter,
    );
    const media = Object.entries(operation.requestBody?.content ?? {})[0];
    return [{ template, method, operation, parameters, mediaType: media?.[0], bodySchema: media?.[1].schema }];
  }),
);

async function send(target: (typeof operations)[number], input: Case) {
  const path = target.template.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(input.path[name] ?? 'x'));
  const query = input.query.length > 0 ? `?${new URLSearchParams(input.query).toString()}` : '';
  let req = api.call(target.method, `/v1${path}${query}`).agent(keepAlive);
  if (input.body !== undefined) {
    if (target.mediaType === 'application/x-www-form-urlencoded' && input.body !== null && typeof input.body === 'object') {
      const fields = Object.entries(input.body as Record<string, unknown>).map(([key, value]): [string, string] => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]);
      req = req.type('form').send(new URLSearchParams(fields).toString());
    } else if (target.mediaType?.startsWith('image/')) {
      // A file body (a logo): the generated value's bytes, as the image type the operation takes.
      const bytes = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
      req = req.set('Content-Type', target.mediaType).send(Buffer.from(bytes ?? '', 'utf8'));
    } else {
      req = req.set('Content-Type', 'application/json').send(JSON.stringify(input.body));
    }
  }
  return req;
}

describe('schema-driven fuzzing of every operation', () => {
  it('when the document is read, then every operation is fuzzed', () => {
    expect(operations.length).toBe(
      Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => key !== 'parameters')).length,
    );
  });

  it.each(operations.map((target) => [target.operation.operationId, target] as const))(
    'when %s gets generated and mutated input, then no 5xx and only statuses it declares',
    async (_operationId, target) => {
      const declared = Object.keys(target.operation.responses);
      for (const mutated of [false, true]) {
        await fc.assert(
          fc.asyncProperty(caseFor(target.parameters, target.bodySchema, mutated), async (input) => {
            const res = await send(target, input);
            expect(res.status, `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
            expect(declared, `${res.status} ${res.body?.code} is not declared`).toContain(String(res.status));
          }),
          { numRuns: runs, endOnFailure: true },
        );
      }
    },
  );
});
