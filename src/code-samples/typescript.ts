// The typed-client sample of an operation: an ES module a partner can run with `npx tsx sample.ts` as it is.
import { BASE_URL_VARIABLE, itemName, KEY_VARIABLE, PUBLISHABLE_KEY_EXAMPLE, type SampleRequest } from './request.js';

/** Code written into a literal as it is (a call such as `ifMatch(read)`), not as a string. */
class Code {
  constructor(readonly text: string) {}
}

/** Literals up to this width stay on one line, as a formatter would leave them; wider ones take a line per entry. */
const INLINE_WIDTH = 72;

/** A value as a TypeScript literal, formatted as the project's code is (identifier keys, single quotes, 2 spaces). */
function tsLiteral(value: unknown, indent = ''): string {
  const inline = inlineLiteral(value);
  if (inline.length <= INLINE_WIDTH || typeof value !== 'object' || value === null || value instanceof Code) return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{\n${entries.map(([name, item]) => `${inner}${propertyKey(name)}: ${tsLiteral(item, inner)},`).join('\n')}\n${indent}}`;
}

function inlineLiteral(value: unknown): string {
  if (value instanceof Code) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => inlineLiteral(item)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([name, item]) => `${propertyKey(name)}: ${inlineLiteral(item)}`).join(', ')} }`;
  }
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  return JSON.stringify(value);
}

const propertyKey = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name.replaceAll("'", "\\'")}'`);

/** `'/forms', { … }`: the arguments of `client.GET(…)` and of the helpers that take the same. */
function callArguments(pathName: string, init: Record<string, unknown>): string {
  return [`'${pathName}'`, ...(Object.keys(init).length > 0 ? [tsLiteral(init)] : [])].join(', ');
}

function pathParamsOf(pathName: string, pathParams: Record<string, unknown>): Record<string, unknown> {
  const names = [...pathName.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  return Object.fromEntries(names.map((name) => [name, pathParams[name]]));
}

export function typeScriptSample(request: SampleRequest, productionUrl: string): string {
  const imports = new Set([request.publishable ? 'createPublicClient' : 'createFormFunnelClient']);
  const lines: string[] = [];
  const params: Record<string, unknown> = {};
  if (Object.keys(request.pathParams).length > 0) params.path = request.pathParams;
  if (Object.keys(request.query).length > 0) params.query = request.query;

  if (request.entityTagFrom) {
    imports.add('ifMatch');
    const readPath = pathParamsOf(request.entityTagFrom, request.pathParams);
    lines.push(
      '// If-Match with the ETag of this read: a change made in between gets 412 instead of being overwritten.',
      `const read = await client.GET(${callArguments(request.entityTagFrom, { params: { path: readPath } })});`,
    );
    params.header = new Code('ifMatch(read)');
  }
  const init: Record<string, unknown> = {};
  if (Object.keys(params).length > 0) init.params = params;
  if (request.body) init.body = request.body.withDefaults;
  if (request.body && request.body.mediaType !== 'application/json') init.headers = { 'Content-Type': request.body.mediaType };

  if (request.file) {
    // A file is sent by the client's helper for it, which sends the bytes as they are with their media type.
    const helper = fileHelpers[request.pathName];
    if (helper === undefined) throw new Error(`${request.pathName}: the client has no helper to send its file body with`);
    imports.add(helper);
    const options: Record<string, unknown> = { contentType: request.file.mediaType };
    if (params.header) options.header = params.header;
    const id = tsLiteral(Object.values(request.pathParams)[0]);
    lines.push(
      `const file = await readFile('${request.file.fileName}'); // the file itself is the body, as ${request.file.mediaType}`,
      `const result = unwrap(await ${helper}(client, ${id}, file, ${tsLiteral(options)}));`,
      'console.log(result);',
    );
    imports.add('unwrap');
  } else if (request.list) {
    imports.add('paginate');
    const item = itemName(request.pathName);
    lines.push(
      '// Every page: the next one starts after the last item of this one, until has_more is false.',
      `for await (const ${item} of paginate(client, ${callArguments(request.pathName, init)})) {`,
      `  console.log(${item});`,
      '}',
    );
  } else if (!request.json && request.pathName === '/submissions/export') {
    // The download, record by record as it arrives, resumed where it broke off.
    imports.add('exportSubmissions');
    lines.push(
      `for await (const submission of exportSubmissions(client${params.query ? `, ${tsLiteral(params.query)}` : ''})) {`,
      '  console.log(submission);',
      '}',
    );
  } else {
    imports.add('unwrap');
    if (request.idempotencyKey) {
      lines.push('// The client sends an Idempotency-Key, the same on every retry: a retry never repeats the change.');
    }
    if (!request.json) init.parseAs = 'text';
    lines.push(`const result = unwrap(await client.${request.method.toUpperCase()}(${callArguments(request.pathName, init)}));`);
    lines.push('console.log(result);');
  }

  return [
    ...(request.file ? ["import { readFile } from 'node:fs/promises';"] : []),
    `import { ${[...imports].sort(byName).join(', ')} } from '@form-funnel/client';`,
    '',
    ...(request.publishable
      ? [
          '// A publishable key is made to be embedded in a web page: it is not a secret.',
          'const client = createPublicClient({',
          `  publishableKey: '${PUBLISHABLE_KEY_EXAMPLE}',`,
        ]
      : ['const client = createFormFunnelClient({', `  apiKey: process.env.${KEY_VARIABLE}!,`]),
    `  baseUrl: process.env.${BASE_URL_VARIABLE} || '${productionUrl}',`,
    '});',
    ...lines,
  ].join('\n');
}

/** The client's helper for each operation whose body is a file, by path: an argument per path parameter, then the file. */
const fileHelpers: Readonly<Record<string, string>> = { '/forms/{id}/logo': 'setFormLogo' };

const byName = (a: string, b: string): number => a.toLowerCase().localeCompare(b.toLowerCase());
