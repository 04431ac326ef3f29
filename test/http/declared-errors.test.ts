/**
 * Every error an operation can produce is one it declares. The errors are derived from the document itself, so a
 * new operation is walked as soon as it is declared: no key (401) where it has security, a key below its scope
 * (403), ids that name nothing in its path and query (404, crossed with each value of its enum parameters, so
 * `format=csv` is tried as well as `format=ndjson`), an unknown query parameter (400), a body that does not parse,
 * comes in another media type or is too large (400, 415, 413), an Idempotency-Key reused for another request (409)
 * and an Accept it may not serve. Each probe is sent and its answer must be a problem+json with a status the
 * operation declares, and the status the probe is built to produce.
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, type Operation } from '../../src/http/contract-document.js';
import { absentId, generousLimits, useWatchedApi } from '../support/http-checks.js';

type Node = Record<string, unknown>;
type Parameter = { name: string; in: string; schema: Node };

const { document, operations } = loadContract();
const api = useWatchedApi({ rateLimits: generousLimits });

let keepAlive: https.Agent;
const keys: Record<'read' | 'admin', string> = { read: '', admin: '' };
beforeAll(async () => {
  keepAlive = new https.Agent({ keepAlive: true, maxSockets: 1, ca: api.certificate });
  keys.admin = api.workspace.live_admin_key;
  keys.read = (await api.createKey({ environment: 'live', scope: 'read' })).secret;
});
afterAll(() => {
  keepAlive.destroy();
});

function resolve<T = Node>(node: unknown): T {
  let current = node as Node;
  while (typeof current.$ref === 'string') {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((parent, key) => (parent as Node)[key], document) as Node;
  }
  return current as T;
}

/** What the document says of one operation, beyond what the server reads from it. */
function described(operation: Operation) {
  const item = document.paths[operation.path] as Node & { parameters?: unknown[] };
  const object = item[operation.method] as { parameters?: unknown[]; responses: Node; requestBody?: { content: Node } };
  const parameters = [...(item.parameters ?? []), ...(object.parameters ?? [])].map((parameter) => {
    const resolved = resolve<Parameter>(parameter);
    return { ...resolved, schema: resolve(resolved.schema) };
  });
  const media = Object.entries(object.requestBody?.content ?? {})[0] as [string, { examples?: Node }] | undefined;
  const example = media && resolve<{ value: unknown }>(Object.values(media[1].examples ?? {})[0] ?? { value: {} }).value;
  return { declared: Object.keys(object.responses), parameters, mediaType: media?.[0], example };
}

/** A value that fits an id parameter's pattern (`^form_[0-9A-Za-z]{24}$`) and names nothing, or null for another kind. */
function absentValue(schema: Node, seed: string): string | null {
  if (schema.type === 'integer') return '1';
  const prefix = typeof schema.pattern === 'string' ? /^\^([a-z]+)_\[0-9A-Za-z\]\{24\}\$$/.exec(schema.pattern)?.[1] : undefined;
  if (prefix) return `${prefix}_${seed.padEnd(24, 'A')}`;
  // The list cursors accept any object's prefix.
  if (schema.pattern === '^[a-z]{2,4}_[0-9A-Za-z]{24}$') return absentId('sub');
  return null;
}

interface Probe {
  name: string;
  /** The status the probe is built to produce; any declared status when undefined. */
  expected?: number;
  path?: string;
  query?: Array<[string, string]>;
  key?: string | null;
  headers?: Record<string, string>;
  /** The body as it goes on the wire; the example body when undefined. */
  raw?: string;
  contentType?: string;
}

const walked = operations.map((operation) => ({ operation, ...described(operation) }));
type Walked = (typeof walked)[number];

function pathOf(target: Walked, seed: string): string {
  return target.operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const parameter = target.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name)!;
    return absentValue(parameter.schema, seed)!;
  });
}

function probesOf(target: Walked): Probe[] {
  const { operation, parameters, mediaType } = target;
  const probes: Probe[] = [];
  if (operation.authenticated) probes.push({ name: 'no key', expected: 401, key: null });
  if (operation.authenticated && operation.minScope !== null && operation.minScope !== 'read') {
    probes.push({ name: 'a read key', expected: 403, key: keys.read });
  }
  if (operation.pathParamNames.length > 0) probes.push({ name: 'path ids that name nothing', expected: 404 });
  probes.push({ name: 'an unknown query parameter', expected: 400, query: [['unknown_parameter', '1']] });
  probes.push({ name: 'an Accept it may not serve', headers: { Accept: 'application/xml' } });

  const queryIds = parameters.filter(
    (parameter) => parameter.in === 'query' && parameter.schema.type === 'string' && absentValue(parameter.schema, 'Q') !== null,
  );
  const enums = parameters.filter((parameter) => parameter.in === 'query' && Array.isArray(parameter.schema.enum));
  for (const id of queryIds) {
    const value = absentValue(id.schema, 'Q')!;
    probes.push({ name: `${id.name} naming nothing`, query: [[id.name, value]] });
    for (const choice of enums) {
      for (const option of choice.schema.enum as string[]) {
        probes.push({
          name: `${id.name} naming nothing, ${choice.name}=${option}`,
          query: [
            [id.name, value],
            [choice.name, option],
          ],
        });
      }
    }
  }

  if (mediaType) {
    probes.push({ name: 'a body that does not parse', expected: 400, raw: '{"unterminated', contentType: mediaType });
    probes.push({ name: 'a body in another media type', expected: 415, raw: 'text', contentType: 'text/plain' });
    probes.push({ name: 'a body over 1 MiB', expected: 413, raw: `"${'x'.repeat(1024 * 1024)}"`, contentType: mediaType });
  }
  return probes;
}

async function send(target: Walked, probe: Probe, seed = 'A') {
  const query = probe.query ? `?${new URLSearchParams(probe.query).toString()}` : '';
  const key = probe.key === undefined ? keys.admin : probe.key;
  let req = api.call(target.operation.method, `/v1${probe.path ?? pathOf(target, seed)}${query}`, key).agent(keepAlive);
  for (const [name, value] of Object.entries(probe.headers ?? {})) req = req.set(name, value);
  if (probe.raw !== undefined) return req.set('Content-Type', probe.contentType!).send(probe.raw);
  if (target.mediaType === 'application/x-www-form-urlencoded') {
    return req.type('form').send(new URLSearchParams(target.example as Record<string, string>).toString());
  }
  return target.mediaType ? req.set('Content-Type', 'application/json').send(JSON.stringify(target.example)) : req;
}

/** A readable line per answer that breaks a rule: an undeclared status, not the probe's status, not a problem. */
function violations(target: Walked, probe: Probe, res: Awaited<ReturnType<typeof send>>): string[] {
  const found: string[] = [];
  const what = `${probe.name}: ${res.status} ${res.body?.code ?? res.headers['content-type']}`;
  if (!target.declared.includes(String(res.status))) found.push(`${what} is not declared`);
  if (probe.expected !== undefined && res.status !== probe.expected) found.push(`${what}, expected ${probe.expected}`);
  if (res.status >= 400 && !/^application\/problem\+json/.test(res.headers['content-type'] ?? ''))
    found.push(`${what} is not problem+json`);
  if (res.status >= 500) found.push(`${what} is a server error`);
  return found;
}

describe('every error an operation can produce is declared', () => {
  it('when the document is read, then every operation is walked, with probes of each kind', () => {
    expect(walked.map((target) => target.operation.operationId).sort()).toEqual(
      Object.values(document.paths)
        .flatMap((item) =>
          ['get', 'post', 'patch', 'delete'].flatMap((method) => ((item as Node)[method] as Node | undefined)?.operationId ?? []),
        )
        .sort(),
    );
    const names = new Set(walked.flatMap((target) => probesOf(target).map((probe) => probe.name.split(',')[0])));
    expect(names).toEqual(
      new Set([
        'no key',
        'a read key',
        'path ids that name nothing',
        'an unknown query parameter',
        'an Accept it may not serve',
        'form_id naming nothing',
        'folder_id naming nothing',
        'starting_after naming nothing',
        'ending_before naming nothing',
        'a body that does not parse',
        'a body in another media type',
        'a body over 1 MiB',
      ]),
    );
  });

  it.each(walked.map((target) => [target.operation.operationId, target] as const))(
    'when %s meets every error the document says it can, then each answer is a declared problem',
    async (_operationId, target) => {
      const found: string[] = [];
      for (const probe of probesOf(target)) found.push(...violations(target, probe, await send(target, probe)));
      expect(found).toEqual([]);
    },
  );

  // The key is claimed before the handler runs, so any operation that accepts one can answer 409.
  const replayable = walked.filter((target) => target.operation.acceptsIdempotencyKey && target.operation.authenticated);

  it.each(replayable.map((target) => [target.operation.operationId, target] as const))(
    'when %s gets an Idempotency-Key already used for another request, then 409 idempotency_conflict is declared',
    async (_operationId, target) => {
      expect(target.declared).toContain('409');
      if (target.operation.pathParamNames.length === 0) return;
      // Two paths that name nothing: the first answer (404) is kept for the key, the second request differs.
      const headers = { 'Idempotency-Key': `walk-${target.operation.operationId}` };
      const first = await send(target, { name: 'first', headers }, 'A');
      const second = await send(target, { name: 'same key, another path', expected: 409, headers }, 'B');
      expect(first.status).toBe(404);
      expect(violations(target, { name: 'same key, another path', expected: 409 }, second)).toEqual([]);
      expect(second.body.code).toBe('idempotency_conflict');
    },
  );

  it.each(walked.map((target) => [target.operation.operationId, target] as const))(
    'when %s is called, then a rate limit (429), a failure (500) and a store that is away (503) are declared',
    (_operationId, target) => {
      expect(target.declared).toEqual(expect.arrayContaining(['429', '500', '503']));
    },
  );
});
