// The breaking-change gate (`npm run breaking`) on purpose-made changes: each test changes a copy of the committed
// v1 baseline (the bundled document as released), runs the gate on it against the baseline, and checks the
// verdict and that the gate names the change. Starting from the baseline rather than from today's document keeps
// each test to the one change it makes: the document's own drift is breaking-current.test.ts's business.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import YAML from 'yaml';
import type { Acknowledgement } from '../../src/cli/security-changes.js';
import { runBreakingGate } from '../support/breaking-gate.js';

// The document is plain YAML data here: the tests reach into it by name (`at`) and change it.
type Doc = Record<string, unknown>;

const root = path.resolve(import.meta.dirname, '../..');
const gateTimeout = 180_000;

let baseline = '';
let workDir = '';

beforeAll(async () => {
  baseline = await readFile(path.join(root, 'openapi/baseline/openapi-v1.yaml'), 'utf8');
  workDir = await mkdtemp(path.join(os.tmpdir(), 'breaking-gate-'));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A fresh copy of the released (bundled) document. */
const released = (): Doc => YAML.parse(baseline) as Doc;

/** The value at `keys`, or an error saying which part of the document a test relies on has gone. */
function at(doc: Doc, ...keys: string[]): Doc {
  let node: unknown = doc;
  for (const key of keys) {
    node = typeof node === 'object' && node !== null ? (node as Doc)[key] : undefined;
    if (node === undefined) throw new Error(`this test changes ${keys.join(' > ')}, which the document no longer has`);
  }
  return node as Doc;
}

const queryParameter = (doc: Doc, pathName: string, method: string, name: string): Doc => {
  const parameters = at(doc, 'paths', pathName, method).parameters as Doc[];
  const resolved = parameters.map((p) => (p.$ref ? at(doc, ...String(p.$ref).slice(2).split('/')) : p));
  const found = resolved.find((p) => p.in === 'query' && p.name === name);
  if (!found) throw new Error(`this test changes query parameter ${name} of ${method} ${pathName}, which is gone`);
  return found;
};

let runs = 0;
/**
 * Runs the gate, as `npm run breaking` does, on `head` against the committed baseline: exit code and output.
 * `acknowledged` replaces the committed list of reviewed security changes.
 */
async function runGate(head: Doc, acknowledged?: Acknowledgement[]): Promise<{ code: number | null; output: string }> {
  const run = path.join(workDir, `run-${++runs}`);
  await mkdir(run);
  await writeFile(path.join(run, 'openapi.yaml'), YAML.stringify(head));
  const args = ['--head', path.join(run, 'openapi.yaml'), '--work-dir', run];
  if (acknowledged) {
    await writeFile(path.join(run, 'security-changes.yaml'), YAML.stringify({ acknowledged }));
    args.push('--security-changes', path.join(run, 'security-changes.yaml'));
  }
  return runBreakingGate(args, gateTimeout - 5_000);
}

interface BreakingCase {
  when: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: most changes edit in place and return nothing; some also name what they removed
  change: (doc: Doc) => void | string[];
  /** Text the gate must print; `change` may return more, computed from the document. */
  names: string[];
}

const breakingChanges: BreakingCase[] = [
  {
    when: 'an operation is removed',
    change: (doc) => {
      at(doc, 'paths', '/test_data', 'delete');
      delete at(doc, 'paths', '/test_data').delete;
    },
    names: ['DELETE /test_data: removed', '[prevent operation removal]'],
  },
  {
    when: 'a query parameter is removed',
    change: (doc) => {
      const get = at(doc, 'paths', '/forms', 'get');
      queryParameter(doc, '/forms', 'get', 'folder_id');
      get.parameters = (get.parameters as Doc[]).filter((p) => p.name !== 'folder_id');
    },
    names: ['GET /forms', "cannot remove query parameter 'folder_id'"],
  },
  {
    when: 'a response property is removed',
    change: (doc) => {
      const me = at(doc, 'components', 'schemas', 'Me');
      at(me, 'properties', 'auth_type');
      delete at(me, 'properties').auth_type;
      me.required = (me.required as string[]).filter((name) => name !== 'auth_type');
    },
    names: ['GET /me', "cannot remove response property 'auth_type'"],
  },
  {
    when: 'a value of a response enum is removed',
    change: (doc) => {
      const authType = at(doc, 'components', 'schemas', 'Me', 'properties', 'auth_type');
      if (!(authType.enum as string[]).includes('oauth_token')) throw new Error('Me.auth_type no longer has oauth_token');
      authType.enum = (authType.enum as string[]).filter((value) => value !== 'oauth_token');
    },
    names: ['GET /me', `cannot remove enum value "oauth_token" from response property 'auth_type'`],
  },
  {
    when: 'a required request field is added',
    change: (doc) => {
      const request = at(doc, 'components', 'schemas', 'FormTransferRequest');
      at(request, 'properties').reason = { type: 'string', maxLength: 200 };
      request.required = [...(request.required as string[]), 'reason'];
    },
    names: ['POST /forms/{id}/transfer', "cannot add a required request property 'reason'"],
  },
  {
    when: 'the maxLength of a request field is reduced',
    change: (doc) => {
      const name = at(doc, 'components', 'schemas', 'FolderCreate', 'properties', 'name');
      const was = name.maxLength as number;
      name.maxLength = Math.floor(was / 2);
      return [`request property 'name' accepts fewer values (maxLength ${was} -> ${name.maxLength})`];
    },
    names: ['POST /folders'],
  },
  {
    when: 'the maximum of a query parameter is lowered',
    change: (doc) => {
      const schema = at(queryParameter(doc, '/submissions', 'get', 'min_score'), 'schema');
      const was = schema.maximum as number;
      schema.maximum = Math.floor(was / 2);
      return [`query parameter 'min_score' accepts fewer values (maximum ${was} -> ${schema.maximum})`];
    },
    names: ['GET /submissions'],
  },
  {
    when: 'the type of a request field is narrowed (null no longer accepted)',
    change: (doc) => {
      const description = at(doc, 'components', 'schemas', 'IntegrationUpdate', 'properties', 'description');
      if (!(description.type as string[]).includes('null')) throw new Error('IntegrationUpdate.description no longer accepts null');
      description.type = 'string';
    },
    names: ['PATCH /integrations/{id}', "expected request body property 'description' not to be narrowed"],
  },
  {
    when: 'a property is removed from a webhook payload',
    change: (doc) => {
      const deletedForm = at(doc, 'components', 'schemas', 'FormDeletedEvent', 'allOf', '1', 'properties', 'data');
      const object = at(deletedForm, 'properties', 'object');
      at(object, 'properties', 'deleted');
      delete at(object, 'properties').deleted;
      object.required = (object.required as string[]).filter((name) => name !== 'deleted');
    },
    names: ['POST /webhooks/form.deleted', "cannot remove response property 'deleted'"],
  },
];

describe.concurrent('breaking-change gate', () => {
  it.for(breakingChanges)(
    'when $when, then the gate fails and names the change',
    { timeout: gateTimeout },
    async ({ change, names }, { expect }) => {
      const doc = released();
      const computed = change(doc) ?? [];
      const { code, output } = await runGate(doc);
      expect(code, output).not.toBe(0);
      for (const name of [...names, ...computed]) expect(output).toContain(name);
      expect(output).toContain('Breaking change against the v1 baseline');
    },
  );

  /** Sets the role every security requirement of the operation names; returns the requirement before and after. */
  const setRole = (doc: Doc, pathName: string, method: string, role: string) => {
    const operation = at(doc, 'paths', pathName, method);
    const before = structuredClone(operation.security) as Acknowledgement['before'];
    operation.security = before.map((requirement) => Object.fromEntries(Object.keys(requirement).map((scheme) => [scheme, [role]])));
    return { before, after: operation.security as Acknowledgement['after'] };
  };

  it.for([
    { when: 'loosened (read on a delete)', path: '/submissions/{id}', method: 'delete', operationId: 'deleteSubmission', role: 'read' },
    { when: 'tightened (read_write on a list)', path: '/forms', method: 'get', operationId: 'listForms', role: 'read_write' },
  ])(
    "when an operation's security requirement is $when without acknowledgement, then the gate fails and names it",
    { timeout: gateTimeout },
    async ({ path: pathName, method, operationId, role }, { expect }) => {
      const doc = released();
      setRole(doc, pathName, method, role);
      const { code, output } = await runGate(doc);
      expect(code, output).not.toBe(0);
      expect(output).toContain(`${method.toUpperCase()} ${pathName} (${operationId}): security requirement changed, not acknowledged`);
      expect(output).toContain(`after:  apiKey: ${role} | oauth2: ${role}`);
      expect(output).toContain(`Security requirement changed without review: ${operationId}.`);
    },
  );

  it(
    'when a loosened security requirement is acknowledged in the reviewed list, then the gate passes',
    async ({ expect }) => {
      const doc = released();
      const { before, after } = setRole(doc, '/submissions/{id}', 'delete', 'read');
      const reason = 'Support agents with read keys clean up spam.';
      const { code, output } = await runGate(doc, [{ operationId: 'deleteSubmission', before, after, reason }]);
      expect(code, output).toBe(0);
      expect(output).toContain('DELETE /submissions/{id} (deleteSubmission): security requirement changed, acknowledged');
      expect(output).toContain('No breaking change against the v1 baseline.');
    },
    gateTimeout,
  );

  it(
    'when the acknowledgement names another requirement than the one made, then the gate still fails',
    async ({ expect }) => {
      const doc = released();
      const { before } = setRole(doc, '/submissions/{id}', 'delete', 'read');
      const reviewed = before.map((requirement) => Object.fromEntries(Object.keys(requirement).map((scheme) => [scheme, ['admin']])));
      const { code, output } = await runGate(doc, [{ operationId: 'deleteSubmission', before, after: reviewed, reason: 'Admins only.' }]);
      expect(code, output).not.toBe(0);
      expect(output).toContain('Security requirement changed without review: deleteSubmission.');
    },
    gateTimeout,
  );

  it(
    'when an optional query parameter is added, then the gate passes',
    async ({ expect }) => {
      const doc = released();
      (at(doc, 'paths', '/forms', 'get').parameters as Doc[]).push({
        name: 'name_contains',
        in: 'query',
        required: false,
        description: 'Only forms whose name contains this text.',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      });
      const { code, output } = await runGate(doc);
      expect(code, output).toBe(0);
      expect(output).toContain('query parameter name_contains: added');
      expect(output).toContain('No breaking change against the v1 baseline.');
    },
    gateTimeout,
  );

  it(
    'when an operation is added, then the gate passes',
    async ({ expect }) => {
      const doc = released();
      const getForm = at(doc, 'paths', '/forms/{id}', 'get');
      at(doc, 'paths')['/forms/{id}/archive'] = {
        parameters: at(doc, 'paths', '/forms/{id}').parameters,
        post: { ...getForm, operationId: 'archiveForm', summary: 'Archive a form' },
      };
      const { code, output } = await runGate(doc);
      expect(code, output).toBe(0);
      expect(output).toContain('POST /forms/{id}/archive: added');
    },
    gateTimeout,
  );
});
