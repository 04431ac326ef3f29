/**
 * Query values as people type them: `q=someone@example.com`, `created_gte=2026-11-02T14:03:11Z`. RFC 3986 lets a
 * query carry `: / ? @ ! $ ' ( ) * + , ; =` unencoded, so every query parameter of the bundled document declares
 * `allowReserved: true`, and the reference server and the Prism mock agree, for every string query parameter
 * and every such character, on whether the value is accepted (only the schema decides, never the character's
 * being reserved). `+` is a space, as in HTML forms and `URLSearchParams` (the document's "Requests" section):
 * a literal plus is sent as `%2B`.
 * Requests are sent with node's http(s) modules, whose `path` goes out byte for byte: `fetch` would
 * percent-encode `'` in the query itself.
 */
import http from 'node:http';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath } from '../../src/cli/mock-bundle.js';
import { testWebhookUrls } from '../http/integrations-support.js';
import { demoForm } from '../http/submissions-support.js';
import { createForm, createIntegration, submit } from '../support/factories.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { deref, document, documentedOperations } from './support/document.js';
import { type RunningPrism, startPrism } from './support/prism.js';

/** The characters RFC 3986 allows unencoded in a query beyond the unreserved ones, except `&` (it separates pairs). */
const reservedInQuery = [':', '/', '?', '@', '!', '$', "'", '(', ')', '*', '+', ',', ';', '='];

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  allowReserved?: boolean;
  schema?: Schema | { $ref: string };
  example?: unknown;
}
interface Schema {
  type?: string;
  enum?: unknown[];
  examples?: unknown[];
  items?: Schema | { $ref: string };
}

const queryOperations = documentedOperations()
  .filter((operation) => operation.method === 'GET')
  .map((operation) => ({
    ...operation,
    query: [...((document.paths[operation.path]!.parameters ?? []) as Parameter[]), ...((operation.parameters ?? []) as Parameter[])]
      .map((parameter) => deref<Parameter>(parameter))
      .filter((parameter) => parameter.in === 'query'),
  }))
  .filter((operation) => operation.query.length > 0);

const schemaOf = (parameter: Parameter): Schema => deref<Schema>(parameter.schema ?? {});
/** A string parameter, or a list of strings (each item is one value of the query). */
const isString = (parameter: Parameter): boolean => {
  const schema = schemaOf(parameter);
  return schema.type === 'string' || (schema.type === 'array' && deref<Schema>(schema.items ?? {}).type === 'string');
};

const mockKey = `svc_test_${'4eC39HqLyjWDarjt'.repeat(2)}`;
const api = useWatchedApi(() => ({ webhookUrls: testWebhookUrls(), rateLimits: generousLimits }));
let prism: RunningPrism;
/** Path and required query values that name real objects on the server (any id of the right shape suits the mock). */
let formId: string;
let integrationId: string;

beforeAll(async () => {
  prism = await startPrism();
  const form = await createForm(api, demoForm());
  formId = form.id;
  integrationId = (await createIntegration(api)).id;
  await submit(api, { form_id: formId, status: 'partial', answers: { full_name: 'Ana Pereira', email: 'someone@example.com' } });
  await submit(api, { form_id: formId, status: 'partial', answers: { full_name: 'Bo Plus', email: 'someone+tag@example.com' } });
});
afterAll(async () => {
  await prism?.stop();
});

interface RawAnswer {
  status: number;
  body: string;
}

/** GET `target` (path and query exactly as given) from the server, over TLS, with its admin key. */
function serverGet(target: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(api.baseUrl);
  const headers = { Authorization: `Bearer ${api.workspace.live_admin_key}` };
  return rawGet(https.request({ hostname, port, path: target, headers, ca: api.certificate }));
}

/** GET `target` from the mock (its paths carry the same base path). */
function mockGet(target: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(prism.url);
  return rawGet(http.request({ hostname, port, path: target, headers: { Authorization: `Bearer ${mockKey}` } }));
}

function rawGet(request: http.ClientRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** The operation's path with real ids, under the base path both the server and the mock serve. */
function pathOf(operationPath: string): string {
  const id = operationPath.startsWith('/integrations/') ? integrationId : formId;
  return `${basePath(document as never)}${operationPath.replace('{id}', id)}`;
}

/** A valid value of the parameter, from the document where it gives one. */
function sampleOf(parameter: Parameter): string {
  const schema = schemaOf(parameter);
  const item = schema.type === 'array' ? deref<Schema>(schema.items ?? {}) : schema;
  if (parameter.name === 'form_id') return formId;
  const candidates = [parameter.example, item.enum?.[0], item.examples?.[0]];
  const sample = candidates.find((candidate) => candidate !== undefined);
  return sample === undefined ? 'ana' : String(sample);
}

/** Required query parameters of the operation other than `except`, with valid values. */
function requiredQuery(query: Parameter[], except: string): string {
  return query
    .filter((parameter) => parameter.required && parameter.name !== except)
    .map((parameter) => `&${parameter.name}=${encodeURIComponent(sampleOf(parameter))}`)
    .join('');
}

const accepted = (answer: RawAnswer) => answer.status >= 200 && answer.status < 300;

describe('every query parameter of the document', () => {
  it('declares allowReserved: true', () => {
    const undeclared = queryOperations.flatMap((operation) =>
      operation.query
        .filter((parameter) => parameter.allowReserved !== true)
        .map((parameter) => `${operation.operationId} ${parameter.name}`),
    );
    expect(queryOperations.length).toBeGreaterThan(10);
    expect(undeclared).toEqual([]);
  });
});

describe.each(queryOperations.map((operation) => [operation.operationId, operation] as const))('%s', (_operationId, operation) => {
  const stringParameters = operation.query.filter(isString);
  it.each(stringParameters.map((parameter) => [parameter.name, parameter] as const))(
    'when %s carries a reserved character unencoded, then the server and the mock agree, and neither refuses the character itself',
    async (name, parameter) => {
      const sample = sampleOf(parameter);
      const middle = Math.ceil(sample.length / 2);
      const disagreements: string[] = [];
      for (const character of reservedInQuery) {
        // The character as typed in the middle of a valid value: a free-text value stays valid, an id or a date does not.
        const value = `${sample.slice(0, middle)}${character}${sample.slice(middle)}`;
        const target = `${pathOf(operation.path)}?${name}=${value}${requiredQuery(operation.query, name)}`;
        const [server, mock] = await Promise.all([serverGet(target), mockGet(target)]);
        expect(server.body, target).not.toMatch(/url encoded|reserved character/i);
        expect(server.status, `${target}: ${server.body}`).toBeLessThan(500);
        expect(mock.status, `${target} (mock): ${mock.body}`).toBeLessThan(500);
        if (accepted(server) !== accepted(mock)) disagreements.push(`${target}: server ${server.status}, mock ${mock.status}`);
      }
      expect(disagreements).toEqual([]);
    },
  );
});

describe('searching for what people type', () => {
  const emailsFound = async (target: string) => {
    const answer = await serverGet(target);
    expect(answer.status, answer.body).toBe(200);
    return (JSON.parse(answer.body).data as Array<{ answers: { email: string } }>).map((submission) => submission.answers.email).sort();
  };

  it('when q is an unencoded email address, then the list and the export find it, and the mock accepts it', async () => {
    const base = basePath(document as never);
    expect(await emailsFound(`${base}/submissions?q=someone@example.com`)).toEqual(['someone@example.com']);
    const exported = await serverGet(`${base}/submissions/export?format=ndjson&q=someone@example.com`);
    expect(exported.status).toBe(200);
    expect(
      exported.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).answers.email),
    ).toEqual(['someone@example.com']);
    expect((await mockGet(`${base}/submissions?q=someone@example.com`)).status).toBe(200);
  });

  it('when q holds a +, then it is a space, and %2B is a plus', async () => {
    const base = basePath(document as never);
    expect(await emailsFound(`${base}/submissions?q=someone%2Btag@example.com`)).toEqual(['someone+tag@example.com']);
    expect(await emailsFound(`${base}/submissions?q=someone+tag@example.com`)).toEqual([]);
    expect(await emailsFound(`${base}/submissions?q=Ana+Pereira`)).toEqual(['someone@example.com']);
  });
});
