// Prepares the two documents that Optic compares in the breaking-change gate (src/cli/breaking.ts).
//
// What Optic does not do by itself, and what this file does about it:
// - It ignores `webhooks`. A webhook payload is something the API sends, like a response body, so each webhook
//   is shown to Optic as an operation `POST /webhooks/<event>` whose 200 response carries the payload and headers.
// - Where the branches of an `allOf` declare the same property, it keeps the first declaration and ignores the
//   others (so it never sees what an event adds to the envelope's `data`). Such declarations of objects are
//   merged into one `allOf` of all of them, which means the same in JSON Schema and which Optic does merge
//   (it merges objects only: for other types the first declaration stays Optic's).
// - It spends time on every operation, changed or not (docs/benchmarks.md has what each costs).
//   Operations whose definition, with everything they reference, is identical in both documents (apart from
//   descriptions, examples and code samples) cannot break anything, so both documents keep only the operations that were
//   added, removed or changed, and only the components that those reach.

type Json = Record<string, unknown>;

export interface OpticInput {
  base: Json;
  head: Json;
  /** "METHOD /path" of every operation that was added, removed or changed. */
  changed: string[];
  /** How many operations (webhooks included) the two documents have together. */
  total: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export const WEBHOOK_PREFIX = '/webhooks/';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const objectAt = (parent: Json, key: string): Json => {
  const value = parent[key];
  return isObject(value) ? value : {};
};

/** Resolves a local reference such as `#/components/schemas/Form`. */
function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    node = isObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
  }
  return node;
}

const deref = (doc: Json, value: unknown): unknown =>
  isObject(value) && typeof value.$ref === 'string' ? resolvePointer(doc, value.$ref) : value;

/** JSON with sorted keys, so that two equal values give the same text. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify(value[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Every local reference that the value reaches, directly or through other references, with its target
 * (passed through `view`, which also decides what is followed).
 */
function reachedReferences(doc: Json, value: unknown, view = (target: unknown) => target): Map<string, unknown> {
  const reached = new Map<string, unknown>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      for (const [key, child] of Object.entries(node)) {
        if (key === '$ref' && typeof child === 'string' && !reached.has(child)) {
          const target = view(resolvePointer(doc, child));
          reached.set(child, target);
          visit(target);
        } else visit(child);
      }
    }
  };
  visit(value);
  return reached;
}

// Keywords that only document. Optic reports no breaking change in them.
const DOCUMENTATION = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'x-codeSamples']);
// Maps whose keys are names chosen by the author (a property may be called `description`): kept whole.
const NAMED_ENTRIES = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'responses',
  'headers',
  'content',
  'encoding',
  'links',
  'callbacks',
  'variables',
  'mapping',
  'scopes',
]);

/** The value without its documentation keywords. */
function withoutDocumentation(value: unknown, named = false): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutDocumentation(item));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => named || !DOCUMENTATION.has(key))
      .map(([key, child]) => [key, withoutDocumentation(child, !named && NAMED_ENTRIES.has(key))]),
  );
}

/** Text that differs whenever the value or anything it references differs, other than in documentation. */
function signature(doc: Json, value: unknown): string {
  const definition = withoutDocumentation(value);
  const reached = [...reachedReferences(doc, definition, (target) => withoutDocumentation(target)).entries()];
  return stableStringify({ definition, reached: reached.sort(([a], [b]) => a.localeCompare(b)) });
}

/** The webhook as an operation whose response is what the API sends: the payload and the headers. */
function webhookAsOperation(doc: Json, event: string, pathItem: Json, operation: Json): Json {
  const headers: Json = {};
  const parameters = [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ];
  for (const parameter of parameters.map((p) => deref(doc, p))) {
    if (isObject(parameter) && parameter.in === 'header' && typeof parameter.name === 'string') {
      const { description, required, deprecated, schema } = parameter;
      headers[parameter.name] = { description, required, deprecated, schema };
    }
  }
  const requestBody = deref(doc, operation.requestBody);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    responses: {
      '200': {
        description: `What the API sends for the ${event} webhook.`,
        headers,
        content: isObject(requestBody) ? requestBody.content : undefined,
      },
    },
  };
}

/** `paths` plus every webhook as `/webhooks/<event>`. */
function pathsWithWebhooks(doc: Json): Json {
  const paths = { ...objectAt(doc, 'paths') };
  const clash = Object.keys(paths).find((path) => path.startsWith(WEBHOOK_PREFIX));
  if (clash) throw new Error(`${clash} clashes with the paths that stand for webhooks (${WEBHOOK_PREFIX}<event>)`);
  for (const [event, item] of Object.entries(objectAt(doc, 'webhooks'))) {
    const pathItem = deref(doc, item);
    if (!isObject(pathItem)) continue;
    const converted: Json = {};
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) converted[method] = webhookAsOperation(doc, event, pathItem, operation);
    }
    paths[`${WEBHOOK_PREFIX}${event}`] = converted;
  }
  return paths;
}

/** "METHOD /path" → signature, for every operation of the document. */
function operationSignatures(doc: Json, paths: Json): Map<string, string> {
  const signatures = new Map<string, string>();
  for (const [path, item] of Object.entries(paths)) {
    const pathItem = deref(doc, item);
    if (!isObject(pathItem)) continue;
    const shared = Object.fromEntries(Object.entries(pathItem).filter(([key]) => !(METHODS as readonly string[]).includes(key)));
    for (const method of METHODS) {
      if (isObject(pathItem[method])) {
        signatures.set(`${method.toUpperCase()} ${path}`, signature(doc, { shared, operation: pathItem[method] }));
      }
    }
  }
  return signatures;
}

/** The document with only the listed operations (and everything else as it was). */
function keepOperations(doc: Json, paths: Json, keep: Set<string>): Json {
  const kept: Json = {};
  for (const [path, item] of Object.entries(paths)) {
    const pathItem = deref(doc, item);
    if (!isObject(pathItem)) continue;
    const trimmed = Object.fromEntries(
      Object.entries(pathItem).filter(([key]) => !(METHODS as readonly string[]).includes(key) || keep.has(`${key.toUpperCase()} ${path}`)),
    );
    if (METHODS.some((method) => method in trimmed)) kept[path] = trimmed;
  }
  const { webhooks: _webhooks, components, ...rest } = doc;
  return { ...rest, paths: kept, components: reachableComponents(doc, { ...rest, paths: kept }, components) };
}

/** The components that the trimmed document still references (security schemes are named, not referenced). */
function reachableComponents(doc: Json, trimmed: Json, components: unknown): Json {
  if (!isObject(components)) return {};
  const reached = new Set([...reachedReferences(doc, trimmed).keys()].map((ref) => ref.split('/').slice(0, 4).join('/')));
  const kept: Json = {};
  for (const [section, entries] of Object.entries(components)) {
    kept[section] =
      section === 'securitySchemes' || !isObject(entries)
        ? entries
        : Object.fromEntries(
            Object.entries(entries).filter(([name]) =>
              reached.has(`#/components/${section}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`),
            ),
          );
  }
  return kept;
}

const isObjectSchema = (doc: Json, schema: unknown): boolean => {
  const resolved = deref(doc, schema);
  return isObject(resolved) && (resolved.type === 'object' || isObject(resolved.properties));
};

/** Rewrites, in place, every `allOf` whose branches declare a property more than once (see the top of the file). */
function mergeRepeatedProperties(doc: Json, node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) mergeRepeatedProperties(doc, item);
    return;
  }
  if (!isObject(node)) return;
  const allOf = node.allOf;
  if (Array.isArray(allOf)) {
    const branches = allOf.map((branch) => deref(doc, branch));
    const declaredIn = new Map<string, number[]>();
    branches.forEach((branch, index) => {
      for (const key of Object.keys(isObject(branch) ? objectAt(branch, 'properties') : {})) {
        declaredIn.set(key, [...(declaredIn.get(key) ?? []), index]);
      }
    });
    if ([...declaredIn.values()].some((indexes) => indexes.length > 1)) {
      node.allOf = branches.map((branch, index) => {
        if (!isObject(branch)) return allOf[index];
        const properties: Json = {};
        for (const [key, definition] of Object.entries(objectAt(branch, 'properties'))) {
          const indexes = declaredIn.get(key) ?? [];
          if (indexes[0] !== index) continue;
          const declarations = indexes.map((i) => objectAt(objectAt(branches[i] as Json, 'properties'), key));
          properties[key] =
            declarations.length > 1 && declarations.every((declaration) => isObjectSchema(doc, declaration))
              ? { allOf: declarations }
              : definition;
        }
        return { ...branch, properties };
      });
    }
  }
  for (const child of Object.values(node)) mergeRepeatedProperties(doc, child);
}

/** A copy of the document as Optic should see it. */
function forOptic(doc: Json): Json {
  const copy = structuredClone(doc);
  mergeRepeatedProperties(copy, copy);
  return copy;
}

export function prepareOpticInput(base: Json, head: Json): OpticInput {
  const basePaths = pathsWithWebhooks(base);
  const headPaths = pathsWithWebhooks(head);
  const before = operationSignatures(base, basePaths);
  const after = operationSignatures(head, headPaths);
  const all = new Set([...before.keys(), ...after.keys()]);
  const changed = [...all].filter((key) => before.get(key) !== after.get(key));
  const keep = new Set(changed);
  return {
    base: forOptic(keepOperations(base, basePaths, keep)),
    head: forOptic(keepOperations(head, headPaths, keep)),
    changed,
    total: all.size,
  };
}
