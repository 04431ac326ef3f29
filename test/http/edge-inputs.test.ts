/**
 * Hostile and odd input: values the validator would coerce, shapes it would wave through, bodies nested to
 * overflow a recursive reader, encodings that do not decode, and text that is not text. Each gets a 4xx
 * problem with a pointer, never a 500, and nothing of it is stored. Inputs the schema lets through that
 * JavaScript cannot represent get a problem too.
 */
import https from 'node:https';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl } from '../../src/domain/integrations/webhook-url.js';
import { loadContract, type Operation, resolve as resolveReference } from '../../src/http/contract-document.js';
import { maxBodyBytes, maxBodyDepth } from '../../src/http/documented-limits.js';
import { formBody } from '../support/factories.js';
import { absentId, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { pngImage } from '../support/images.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const logLines: Array<{ level: number; msg: string }> = [];
const api = useWatchedApi(() => ({
  rateLimits: generousLimits,
  logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
}));
/** The public operations take a publishable key (a secret key gets 403 there before any parameter is read). */
let publishableKey = '';
beforeAll(async () => {
  publishableKey = (await createPublishableKey(api, { environment: 'live' })).value;
});
const keyFor = (operation: Operation): string | undefined => (operation.publishable ? publishableKey : undefined);

describe('inputs at the edge of the formats', () => {
  it('when a list filter names a leap second, then 400 invalid_parameters pointing at it', async () => {
    const res = await api.call('get', '/v1/submissions?created_gte=2024-12-31T23:59:60Z');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    expect(res.body.details.errors[0]).toMatchObject({ location: 'query', pointer: '/created_gte' });
  });

  it('when a key would expire on a leap second, then 422 with a pointer to expires_at and no key is made', async () => {
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'leap', environment: 'live', scope: 'read', expires_at: '2030-06-30T23:59:60Z' });
    expect([400, 422]).toContain(res.status);
    expect(JSON.stringify(res.body.details.errors)).toContain('/expires_at');
    const keys = await api.call('get', '/v1/api_keys?limit=100');
    expect(keys.body.data.map((key: { name: string }) => key.name)).not.toContain('leap');
  });

  it('when a path carries malformed percent-encoding, then 400, not 500', async () => {
    const res = await api.call('get', '/v1/forms/%E0%A4');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});

const formWithCondition = (when: string): string =>
  `{"name":"Deep","steps":[{"id":"s","title":"S","fields":[{"type":"short_text","ref":"a","label":"A"}]}],` +
  `"logic":[{"id":"r","from_step":"s","when":${when},"then":{"action":"end_form"}}]}`;
const nestedCondition = (levels: number): string =>
  '{"all":['.repeat(levels) + '{"field":"a","op":"equals","value":"x"}' + ']}'.repeat(levels);

/** Sends bytes exactly as given (supertest would serialize a Buffer as JSON). */
const sendRaw = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
  api
    .call('post', path)
    .set({ 'Content-Type': 'application/json', ...headers })
    .serialize((raw: unknown) => raw as string)
    .send(body as never);

describe('numeric query and path parameters are plain decimals', () => {
  const numericOperations = loadContract().operations.filter((operation) => operation.numericParams.length > 0);

  it('when the contract is read, then every list and the version path have numeric parameters to check', () => {
    expect(numericOperations.length).toBeGreaterThanOrEqual(8);
  });

  it.each(['1e309', '-1e309', 'Infinity', 'NaN', '0x10', '0b11', ' 5', '1e1', '5.0', '99999999999999999999'])(
    'when %j is sent for any numeric parameter of any operation, then 400 invalid_parameters with its pointer',
    async (value) => {
      for (const operation of numericOperations) {
        for (const parameter of operation.numericParams) {
          let path = `/v1${operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => (name === parameter.name ? encodeURIComponent(value) : 'x'))}`;
          if (parameter.in === 'query') path += `?${parameter.name}=${encodeURIComponent(value)}`;
          const res = await api.call(operation.method, path);
          expect({ operation: operation.operationId, status: res.status, code: res.body.code }).toEqual({
            operation: operation.operationId,
            status: 400,
            code: 'invalid_parameters',
          });
          // Other path parameters are placeholders the validator reports too; this one is reported once.
          expect(res.body.details.errors.filter((issue: { pointer: string }) => issue.pointer === `/${parameter.name}`)).toEqual([
            { location: parameter.in, pointer: `/${parameter.name}`, code: 'type', message: expect.any(String) },
          ]);
        }
      }
    },
  );

  it('when limit overflows and another parameter is wrong too, then both are listed in one answer', async () => {
    const res = await api.call('get', '/v1/submissions?limit=1e309&status=done');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res).sort()).toEqual(['query /limit type', 'query /status enum']);
  });

  it('when limit is a plain decimal, then it is accepted', async () => {
    expect((await api.call('get', '/v1/forms?limit=7')).status).toBe(200);
  });
});

/** The query and path parameters whose values are text (alone or as the items of a repeated parameter), per operation. */
function textParameters(): Array<{ operation: Operation; name: string; in: 'query' | 'path'; format: unknown }> {
  const { document, operations } = loadContract();
  const resolve = (node: unknown) => resolveReference(document, node);
  return operations.flatMap((operation) => {
    const item = document.paths[operation.path] as { parameters?: unknown[] } & Record<string, { parameters?: unknown[] }>;
    const declared = [...(item.parameters ?? []), ...(item[operation.method]!.parameters ?? [])].map(resolve);
    return declared.flatMap((parameter) => {
      let schema = resolve(parameter.schema);
      if (schema.type === 'array') schema = resolve(schema.items);
      const location = parameter.in;
      return schema.type === 'string' && (location === 'query' || location === 'path')
        ? [{ operation, name: parameter.name as string, in: location, format: schema.format }]
        : [];
    });
  });
}

/**
 * A date-time's offset can carry a valid text past the years UTC text covers: `9999-12-31T23:59:59-14:00` is in
 * year 10000, which JavaScript writes `+010000-…`, a text no schema of the API accepts (a key that expired then
 * was stored, then failed its own response: 500). Every timestamp a client sends is read by one function
 * (src/domain/client-timestamps.ts), which refuses instants outside years 0000 to 9999.
 */
describe('timestamps beyond the years the API writes', () => {
  const dateTimeParameters = textParameters().filter((parameter) => parameter.format === 'date-time');
  const beyond = ['9999-12-31T23:59:59-14:00', '0000-01-01T00:00:00+14:00'];

  it('when the contract is read, then the list filters and the export cursor are the date-time parameters to check', () => {
    expect(new Set(dateTimeParameters.map((parameter) => parameter.name))).toEqual(
      new Set(['created_gte', 'created_lt', 'updated_gte', 'updated_lt', 'completed_gte', 'completed_lt', 'starting_after_created_at']),
    );
  });

  it.each(beyond)('when a date-time query parameter names %s, then 400 invalid_parameters pointing at it', async (value) => {
    for (const { operation, name } of dateTimeParameters) {
      const companion = name.startsWith('starting_after_') ? `&starting_after=${absentId('sub')}` : '';
      const res = await api.call(operation.method, `/v1${operation.path}?${name}=${encodeURIComponent(value)}${companion}`);
      expect({ operation: operation.operationId, name, status: res.status, code: res.body.code }).toEqual({
        operation: operation.operationId,
        name,
        status: 400,
        code: 'invalid_parameters',
      });
      expect(issuesOf(res)).toContain(`query /${name} format`);
    }
  });

  it.each(beyond)('when a key would expire at %s, then 422 pointing at expires_at and no key is made', async (value) => {
    const res = await api.call('post', '/v1/api_keys').send({ name: 'beyond', environment: 'live', scope: 'read', expires_at: value });
    expect(res.status).toBe(422);
    expect(issuesOf(res)).toContain('body /expires_at format');
    const keys = await api.call('get', '/v1/api_keys?limit=100');
    expect(keys.body.data.map((key: { name: string }) => key.name)).not.toContain('beyond');
  });

  it('when a key expires at the last millisecond of year 9999, then it is made and read back as given', async () => {
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'last', environment: 'live', scope: 'read', expires_at: '9999-12-31T23:59:59.999Z' });
    expect(res.status).toBe(201);
    const read = await api.call('get', `/v1/api_keys/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.expires_at).toBe('9999-12-31T23:59:59.999Z');
  });
});

/**
 * Text that SQLite would store and PostgreSQL refuses (NUL), or that a log or a terminal would act on (other
 * control characters), must stop at the validator whatever parameter carries it: every text parameter's schema
 * says which text it takes (a pattern, an enum or a date format), so the mock refuses it as the server does.
 */
describe('text query and path parameters are text', () => {
  const parameters = textParameters();

  it('when the contract is read, then ids, filters, cursors and dates are among the text parameters to check', () => {
    expect(parameters.length).toBeGreaterThanOrEqual(40);
    expect(parameters.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['id', 'grade', 'q', 'utm_source', 'created_gte', 'starting_after']),
    );
  });

  it.each([
    { what: 'NUL alone', value: '\u0000' },
    { what: 'NUL after text', value: 'a\u0000' },
    { what: 'an ANSI escape', value: '\u001b[31m' },
    { what: 'DEL', value: 'x\u007f' },
    { what: 'a C1 control (NEL)', value: '\u0085' },
  ])('when $what is sent in any text parameter of any operation, then 400 invalid_parameters with its pointer', async ({ value }) => {
    for (const parameter of parameters) {
      const { operation } = parameter;
      let path = `/v1${operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => (name === parameter.name ? encodeURIComponent(value) : 'x'))}`;
      if (parameter.in === 'query') path += `?${parameter.name}=${encodeURIComponent(value)}`;
      const request = api.call(operation.method, path, keyFor(operation));
      // A body the operation takes, so the answer is about the parameter and not a missing media type.
      const [mediaType] = operation.requestMediaTypes;
      const res = await (mediaType === 'application/json'
        ? request.send({})
        : operation.rawBody
          ? request.set('Content-Type', mediaType!).send(pngImage(16, 16))
          : request);
      expect({ operation: operation.operationId, parameter: parameter.name, status: res.status, code: res.body.code }).toEqual({
        operation: operation.operationId,
        parameter: parameter.name,
        status: 400,
        code: 'invalid_parameters',
      });
      const pointers = res.body.details.errors.map((issue: { location: string; pointer: string }) => `${issue.location} ${issue.pointer}`);
      const own = `${parameter.in} /${parameter.name}`;
      expect(pointers.some((pointer: string) => pointer === own || pointer.startsWith(`${own}/`))).toBe(true);
    }
  });
});

describe('discriminated unions accept objects only', () => {
  it.each([[[{ type: 'workspace' }]], ['workspace'], [7], [null]])(
    'when attachment is %j, then 400 on /attachment and no key is made',
    async (attachment) => {
      const before = (await api.call('get', '/v1/api_keys?limit=100')).body.data.length;
      const res = await api.call('post', '/v1/api_keys').send({ name: 'odd', environment: 'live', scope: 'read', attachment });
      expectProblem(res, 400, 'validation_error', 'invalid_parameters');
      expect(issuesOf(res)).toContain('body /attachment type');
      expect((await api.call('get', '/v1/api_keys?limit=100')).body.data.length).toBe(before);
    },
  );

  it('when a field, a condition or an action is an array, then 400 pointing at each', async () => {
    const res = await api.call('post', '/v1/forms').send({
      name: 'Arrays',
      steps: [{ id: 's', title: 'S', fields: [['short_text']] }],
      logic: [{ id: 'r', from_step: 's', when: [], then: [] }],
    });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(expect.arrayContaining(['body /steps/0/fields/0 type', 'body /logic/0/then type']));
    expect(issuesOf(res).some((issue) => issue.startsWith('body /logic/0/when'))).toBe(true);
  });
});

describe('nesting depth', () => {
  it('when a condition nests 6 levels, then the domain still answers 422 condition_too_deep', async () => {
    const res = await sendRaw('/v1/forms', formWithCondition(nestedCondition(6)));
    expectProblem(res, 422, 'validation_error', 'invalid_form_logic');
  });

  it.each([2_500, 100_000])('when a condition nests %i levels, then 400 max_depth at the first level too deep', async (levels) => {
    const body = formWithCondition(nestedCondition(levels));
    expect(body.length).toBeLessThan(maxBodyBytes);
    const res = await sendRaw('/v1/forms', body);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(res.body.details.errors).toHaveLength(1);
    const [issue] = res.body.details.errors;
    expect(issue).toMatchObject({ location: 'body', code: 'max_depth' });
    // Body → logic → rule → when make 4 levels; each condition level adds an object and an array.
    expect(issue.pointer).toBe(`/logic/0/when${'/all/0'.repeat((maxBodyDepth - 4) / 2)}/all`);
  });

  it('when any body (here a submission) nests past the limit, then 400 max_depth', async () => {
    const res = await sendRaw('/v1/submissions', `{"form_id":"${absentId('form')}","answers":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual([`body /answers/a${'/0'.repeat(maxBodyDepth - 2)} max_depth`]);
  });
});

describe('body encodings', () => {
  const json = '{"name":"Compressed form"}';

  it.each(['gzip', 'deflate', 'br'])(
    'when Content-Encoding is %s but the body is not compressed, then 400 invalid_json',
    async (encoding) => {
      const res = await sendRaw('/v1/forms', json, { 'Content-Encoding': encoding });
      expectProblem(res, 400, 'validation_error', 'invalid_json');
    },
  );

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('when the body is really compressed with %s, then it is accepted', async (encoding, compress) => {
    const res = await sendRaw('/v1/forms', compress(Buffer.from(json)), { 'Content-Encoding': encoding });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Compressed form');
  });

  it('when a small compressed body inflates past 1 MiB, then 413 payload_too_large', async () => {
    const bomb = gzipSync(Buffer.from(`{"name":"Bomb","padding":"${'a'.repeat(2 * maxBodyBytes)}"}`));
    expect(bomb.length).toBeLessThan(10_000);
    const res = await sendRaw('/v1/forms', bomb, { 'Content-Encoding': 'gzip' });
    expectProblem(res, 413, 'invalid_request', 'payload_too_large');
  });

  it('when Content-Encoding is one the API does not take, then 415', async () => {
    const res = await sendRaw('/v1/forms', json, { 'Content-Encoding': 'compress' });
    expectProblem(res, 415, 'invalid_request', 'unsupported_media_type');
  });

  it('when the charset is not UTF-8, then 415', async () => {
    const res = await sendRaw('/v1/forms', Buffer.from(json, 'utf16le'), { 'Content-Type': 'application/json; charset=utf-16le' });
    expectProblem(res, 415, 'invalid_request', 'unsupported_media_type');
  });

  it('when the bytes are not UTF-8, then 400 invalid_json and nothing is stored', async () => {
    const res = await sendRaw('/v1/forms', Buffer.concat([Buffer.from('{"name":"Latin '), Buffer.from([0xe9]), Buffer.from('"}')]));
    expectProblem(res, 400, 'validation_error', 'invalid_json');
    expect(issuesOf(res)).toEqual(['body  invalid_utf8']);
    expect(await api.rows("SELECT count(*) AS n FROM forms WHERE name LIKE 'Latin%'")).toEqual([{ n: 0 }]);
  });

  it('when a string holds a lone surrogate, then 400 lone_surrogate at its pointer', async () => {
    const res = await sendRaw('/v1/forms', '{"name":"Half \\ud83d pair"}');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['body /name lone_surrogate']);
  });

  it('when a string holds a surrogate pair, then it is text like any other', async () => {
    const res = await sendRaw('/v1/forms', '{"name":"Rocket \\ud83d\\ude80"}');
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Rocket 🚀');
  });

  it('when any string or property name holds NUL, then 400 control_character at its pointer', async () => {
    const res = await sendRaw('/v1/submissions', `{"form_id":"${absentId('form')}","answers":{"a":"x\\u0000y","b\\u0000":"z"}}`);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res).sort()).toEqual(['body /answers/a control_character', 'body /answers/b\u0000 control_character']);
  });
});

describe('aborted uploads', () => {
  it('when a client goes away mid-upload, then the request is logged at info and nothing at error', async () => {
    const { hostname, port } = new URL(api.baseUrl);
    const before = logLines.length;
    const req = https.request({
      hostname,
      port,
      path: '/v1/forms',
      method: 'POST',
      ca: api.certificate,
      servername: 'localhost',
      headers: { Authorization: `Bearer ${api.workspace.live_admin_key}`, 'Content-Type': 'application/json', 'Content-Length': '1000' },
    });
    req.on('error', () => {});
    req.write('{"name":"Gone');
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy();
    await expect.poll(() => logLines.slice(before).some((line) => line.msg === 'request aborted by the client')).toBe(true);
    expect(logLines.slice(before).filter((line) => line.level >= 50)).toEqual([]);
  });
});

describe('input hygiene', () => {
  it.each([
    ['a form name', '/v1/forms', { name: 'Demo\u0000request' }, '/name'],
    ['a form name with a line break', '/v1/forms', { name: 'Demo\nrequest' }, '/name'],
    ['a folder name', '/v1/folders', { name: 'Q3\u0007' }, '/name'],
    ['an API key name', '/v1/api_keys', { name: 'CRM\u007fsync', environment: 'live', scope: 'read' }, '/name'],
    ['a step title', '/v1/forms', formBody('Titles', { steps: [{ id: 's', title: 'Con\ttact', fields: [] }] }), '/steps/0/title'],
    [
      'a field label',
      '/v1/forms',
      formBody('Labels', { steps: [{ id: 's', title: 'S', fields: [{ type: 'email', ref: 'e', label: 'Mail\u0085' }] }] }),
      '/steps/0/fields/0/label',
    ],
    ['a slug', '/v1/forms', { name: 'Slugs', slug: 'demo\u0000' }, '/slug'],
  ])('when %s holds a control character, then 400 at its pointer', async (_case, path, body, pointer) => {
    const res = await api.call('post', path).send(body);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res).filter((issue) => issue.startsWith(`body ${pointer} `)).length).toBeGreaterThan(0);
  });

  it('when a name holds letters of any script and emoji, then it is accepted', async () => {
    const res = await api.call('post', '/v1/forms').send({ name: 'Démo – 申し込み 🚀' });
    expect(res.status).toBe(201);
  });

  it.each(['0177.0.0.14', '1.2.3', '127.1', '010.0.0.1/8', '::ffff:0177.0.0.1', '10.0.0.0/08'])(
    'when an allowlist entry spells IPv4 as %s, then 422 invalid_ip on it and no key is made',
    async (entry) => {
      const res = await api
        .call('post', '/v1/api_keys')
        .send({ name: 'odd ip', environment: 'live', scope: 'read', ip_allowlist: ['203.0.113.7', entry] });
      expectProblem(res, 422, 'validation_error', 'invalid_value');
      expect(issuesOf(res)).toEqual(['body /ip_allowlist/1 invalid_ip']);
    },
  );

  it('when an allowlist entry is hexadecimal, then the schema refuses it (400)', async () => {
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'hex ip', environment: 'live', scope: 'read', ip_allowlist: ['0x7f.1'] });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['body /ip_allowlist/0 pattern']);
  });

  it('when allowlist entries are canonical, then the key is made with them as given', async () => {
    const entries = ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32', '::ffff:203.0.113.8'];
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'good ips', environment: 'live', scope: 'read', ip_allowlist: entries });
    expect(res.status).toBe(201);
    expect(res.body.ip_allowlist).toEqual(entries);
  });

  it.each(['https://user:secret@hooks.example.com/x', 'https://user@hooks.example.com/x', 'https://:secret@hooks.example.com/'])(
    'when a webhook URL carries credentials (%s), then 400 on /url',
    async (url) => {
      const res = await api.call('post', '/v1/integrations').send({ url, events: ['form.created'] });
      expectProblem(res, 400, 'validation_error', 'invalid_parameters');
      expect(issuesOf(res)).toContain('body /url pattern');
    },
  );

  it('when a stored webhook URL carries credentials, then the URL check refuses it too', async () => {
    const verdict = await checkWebhookUrl('https://user:secret@hooks.example.com/x', {
      allowPrivateAddresses: false,
      resolveHost: async () => [{ address: '93.184.216.34', family: 4 }],
    });
    expect(verdict).toEqual({ ok: false, reason: 'it carries credentials (user:password@)' });
  });
});
