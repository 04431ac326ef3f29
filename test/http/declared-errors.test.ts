/**
 * Every error an operation can produce is one it declares. The errors are derived from the document itself, so a
 * new operation is walked as soon as it is declared: no key (401) where it has security, a key below its scope
 * (403), ids that name nothing in its path and query (404, crossed with each value of its enum parameters, so
 * `format=csv` is tried as well as `format=ndjson`), an unknown query parameter (400), a body that does not parse,
 * comes in another media type or is too large (400, 415, 413), an Idempotency-Key reused for another request (409)
 * and an Accept it may not serve. Then the handlers' own refusals, on real resources made for each operation: a
 * test key on live ones, a key attached to another form, a stale If-Match, the documented example body, twice.
 * Each probe is sent and its answer must be a problem+json with a status the operation declares, and the status
 * the probe is built to produce where there is one.
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, type Operation } from '../../src/http/contract-document.js';
import { createFolder, createForm, createIntegration, submit } from '../support/factories.js';
import { absentId, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { pngImage } from '../support/images.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { testWebhookUrls } from './integrations-support.js';
import { anaAnswers, anaHidden, demoForm } from './submissions-support.js';

type Node = Record<string, unknown>;
type Parameter = { name: string; in: string; schema: Node };

const { document, operations } = loadContract();
const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));

let keepAlive: https.Agent;
const keys: Record<'read' | 'admin' | 'test' | 'otherForm', string> = { read: '', admin: '', test: '', otherForm: '' };
/** The same roles for the public operations, which take publishable keys only. */
const publishableKeys: Record<'admin' | 'test' | 'otherForm', string> = { admin: '', test: '', otherForm: '' };
let other: { workspace_id: string };
beforeAll(async () => {
  keepAlive = new https.Agent({ keepAlive: true, maxSockets: 1, ca: api.certificate });
  keys.admin = api.workspace.live_admin_key;
  keys.test = api.workspace.test_admin_key;
  keys.read = (await api.createKey({ environment: 'live', scope: 'read' })).secret;
  const elsewhere = await createForm(api, demoForm({ name: 'Elsewhere' }));
  const attachment = { type: 'form', form_id: elsewhere.id } as const;
  keys.otherForm = (await api.createKey({ environment: 'live', scope: 'admin', attachment })).secret;
  publishableKeys.admin = (await createPublishableKey(api, { environment: 'live' })).value;
  publishableKeys.test = (await createPublishableKey(api, { environment: 'test' })).value;
  publishableKeys.otherForm = (await createPublishableKey(api, { environment: 'live', attachment })).value;
  other = await api.otherWorkspace();
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

/** A body sent as a file (a logo's image types), not parsed as JSON or form fields. */
const isFile = (mediaType: string) => mediaType !== 'application/json' && mediaType !== 'application/x-www-form-urlencoded';

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

  if (mediaType && isFile(mediaType)) {
    // What a file is comes after whose it is: on ids that name nothing, the 404 (the 422 is probed on real ones below).
    probes.push({ name: 'a file that is not the image it says', raw: '{"unterminated', contentType: mediaType });
  } else if (mediaType) {
    probes.push({ name: 'a body that does not parse', expected: 400, raw: '{"unterminated', contentType: mediaType });
  }
  if (mediaType) {
    probes.push({ name: 'a body in another media type', expected: 415, raw: 'text', contentType: 'text/plain' });
    probes.push({ name: 'a body over 1 MiB', expected: 413, raw: `"${'x'.repeat(1024 * 1024)}"`, contentType: mediaType });
  }
  return probes;
}

async function send(target: Walked, probe: Probe, seed = 'A', ids?: RealIds) {
  const query = probe.query ? `?${new URLSearchParams(probe.query).toString()}` : '';
  const key = probe.key === undefined ? (target.operation.publishable ? publishableKeys.admin : keys.admin) : probe.key;
  const path = probe.path ?? (ids ? realPathOf(target, ids) : pathOf(target, seed));
  let req = api.call(target.operation.method, `/v1${path}${query}`, key).agent(keepAlive);
  for (const [name, value] of Object.entries(probe.headers ?? {})) req = req.set(name, value);
  if (probe.raw !== undefined) return req.set('Content-Type', probe.contentType!).send(probe.raw);
  const example = ids ? withRealIds(target.example, ids) : target.example;
  if (target.mediaType && isFile(target.mediaType)) return req.set('Content-Type', target.mediaType).send(pngImage(32, 32));
  if (target.mediaType === 'application/x-www-form-urlencoded') {
    return req.type('form').send(new URLSearchParams(example as Record<string, string>).toString());
  }
  return target.mediaType ? req.set('Content-Type', 'application/json').send(JSON.stringify(example)) : req;
}

/** Ids of real resources, by prefix (`form`, `sub`, ...), made afresh for each operation: a probe may delete them. */
type RealIds = Record<string, string>;

let made = 0;
/** Makes the resources of the kinds asked for (and those they need); each kind is made once per call. */
async function realIds(kinds: ReadonlySet<string>): Promise<RealIds> {
  const ok = async (request: ReturnType<typeof api.call>, status = 201) => {
    const res = await request;
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };
  const ids: RealIds = { ws: other.workspace_id };
  const makers: Record<string, () => Promise<string>> = {
    form: async () => (await createForm(api, demoForm({ name: `Walked ${++made}` }))).id,
    sub: async () => {
      const body = { form_id: await id('form'), answers: anaAnswers(), hidden: anaHidden(), status: 'partial' as const };
      return (await submit(api, body)).id;
    },
    fld: async () => (await createFolder(api, `Folder ${++made}`)).id,
    int: async () => (await createIntegration(api)).id,
    key: async () => (await api.createKey({ environment: 'live', scope: 'read' })).id,
    pk: async () => (await createPublishableKey(api, { environment: 'live' })).id,
    inv: async () => (await ok(api.call('post', '/v1/team/invites').send({ email: `walk${++made}@acme.example`, role: 'editor' }))).id,
    mem: async () => (await ok(api.call('get', '/v1/team/members'), 200)).data[0].id,
    rsj: async () => (await ok(api.call('post', `/v1/forms/${await id('form')}/rescore`), 202)).id,
    xfr: async () => {
      const offered = await createForm(api, demoForm({ name: `Offered ${++made}` }));
      return (await ok(api.call('post', `/v1/forms/${offered.id}/transfer`).send({ workspace_id: other.workspace_id }))).id;
    },
    evt: async () => {
      await id('form');
      return (await ok(api.call('get', '/v1/events'), 200)).data[0].id;
    },
  };
  const id = async (kind: string): Promise<string> => {
    ids[kind] ??= await makers[kind]!();
    return ids[kind];
  };
  for (const kind of kinds) if (makers[kind]) await id(kind);
  return ids;
}

/** The kinds of resource (id prefixes) an operation names in its path, its query or its example body. */
function kindsNamed(target: Walked): Set<string> {
  const kinds = new Set<string>();
  for (const parameter of target.parameters) {
    const prefix = parameter.in === 'path' || parameter.in === 'query' ? idPrefix(parameter.schema) : undefined;
    if (prefix) kinds.add(prefix);
  }
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const prefix = /^([a-z]+)_[0-9A-Za-z]{24}$/.exec(value)?.[1];
      if (prefix) kinds.add(prefix);
    } else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(target.example);
  return kinds;
}

const idPrefix = (schema: Node): string | undefined =>
  typeof schema.pattern === 'string' ? /^\^([a-z]+)_\[0-9A-Za-z\]\{24\}\$$/.exec(schema.pattern)?.[1] : undefined;

function realPathOf(target: Walked, ids: RealIds): string {
  return target.operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const parameter = target.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name)!;
    return parameter.schema.type === 'integer' ? '1' : ids[idPrefix(parameter.schema)!]!;
  });
}

/** The example body with every id in it replaced by the real resource of the same kind. */
function withRealIds(value: unknown, ids: RealIds): unknown {
  if (typeof value === 'string') {
    const prefix = /^([a-z]+)_[0-9A-Za-z]{24}$/.exec(value)?.[1];
    return prefix && ids[prefix] ? ids[prefix] : value;
  }
  if (Array.isArray(value)) return value.map((item) => withRealIds(item, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withRealIds(item, ids)]));
  }
  return value;
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
          ['get', 'post', 'put', 'patch', 'delete'].flatMap((method) => ((item as Node)[method] as Node | undefined)?.operationId ?? []),
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
        'a file that is not the image it says',
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

  // The handlers' own refusals need real resources: a test key on live ones (403 live_resource), a key attached to
  // another form (403 form_not_attached), a stale If-Match (412), the documented example body on real ids (409,
  // 422 ...), and the same request twice (a second delete, accept or revoke).
  it.each(walked.map((target) => [target.operation.operationId, target] as const))(
    'when %s is called on real resources by keys that may not, and twice by one that may, then each answer is declared',
    async (_operationId, target) => {
      const ids = await realIds(kindsNamed(target));
      // Query parameters that name a resource (`form_id`, `folder_id`) name the real one.
      const query = target.parameters.flatMap((parameter): Array<[string, string]> => {
        const id = parameter.in === 'query' ? ids[idPrefix(parameter.schema) ?? ''] : undefined;
        return id ? [[parameter.name, id]] : [];
      });
      const roles = target.operation.publishable ? publishableKeys : keys;
      const probes: Probe[] = [
        { name: 'a test key on live resources', key: roles.test, query },
        { name: 'a key attached to another form', key: roles.otherForm, query },
      ];
      if (target.parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'If-Match')) {
        probes.push({ name: 'a stale If-Match', expected: 412, headers: { 'If-Match': '"stale"' }, query });
      }
      if (target.mediaType && isFile(target.mediaType)) {
        probes.push({
          name: 'a file that is not the image it says',
          expected: 422,
          raw: 'not an image',
          contentType: target.mediaType,
          query,
        });
      }
      probes.push({ name: 'the example, first time', query }, { name: 'the example, second time', query });
      const found: string[] = [];
      for (const probe of probes) found.push(...violations(target, probe, await send(target, probe, 'A', ids)));
      expect(found).toEqual([]);
    },
  );

  it.each(walked.map((target) => [target.operation.operationId, target] as const))(
    'when %s is called, then a rate limit (429), a failure (500) and a store that is away (503) are declared',
    (_operationId, target) => {
      expect(target.declared).toEqual(expect.arrayContaining(['429', '500', '503']));
    },
  );
});
