// The breaking-change gate (`npm run breaking`) on purpose-made changes: each test changes a copy of the committed
// v1 baseline (the bundled document as released), runs the gate on it against the baseline, and checks the
// verdict and that the gate names the change. Changes to different operations share a copy and a run (sharedRun).
// Starting from the baseline rather than from today's document keeps each test to the one change it makes: the
// document's own drift is breaking-current.test.ts's business.
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
  /** The gate run it shares with other changes (see sharedRun): changes of one run touch different operations. */
  run: 'first' | 'second';
  // biome-ignore lint/suspicious/noConfusingVoidType: most changes edit in place and return nothing; some also name what they removed
  change: (doc: Doc) => void | string[];
  /** Text the gate must print; `change` may return more, computed from the document. */
  names: string[];
}

const breakingChanges: BreakingCase[] = [
  {
    when: 'an operation is removed',
    run: 'first',
    change: (doc) => {
      at(doc, 'paths', '/test_data', 'delete');
      delete at(doc, 'paths', '/test_data').delete;
    },
    names: ['DELETE /test_data: removed', '[prevent operation removal]'],
  },
  {
    when: 'a query parameter is removed',
    run: 'first',
    change: (doc) => {
      const get = at(doc, 'paths', '/forms', 'get');
      queryParameter(doc, '/forms', 'get', 'folder_id');
      get.parameters = (get.parameters as Doc[]).filter((p) => p.name !== 'folder_id');
    },
    names: ['GET /forms', "cannot remove query parameter 'folder_id'"],
  },
  {
    when: 'a response property is removed',
    run: 'first',
    change: (doc) => {
      const me = at(doc, 'components', 'schemas', 'Me');
      at(me, 'properties', 'auth_type');
      delete at(me, 'properties').auth_type;
      me.required = (me.required as string[]).filter((name) => name !== 'auth_type');
    },
    names: ['GET /me', "cannot remove response property 'auth_type'"],
  },
  {
    when: "the submission's `context` is renamed back to `metadata` (the rename v1 allowed once, recorded in the baseline)",
    run: 'first',
    change: (doc) => {
      const submission = at(doc, 'components', 'schemas', 'Submission');
      const properties = at(submission, 'properties');
      properties.metadata = at(properties, 'context');
      delete properties.context;
      submission.required = (submission.required as string[]).map((name) => (name === 'context' ? 'metadata' : name));
    },
    names: ['GET /submissions/{id}', "cannot remove response property 'context'"],
  },
  {
    when: 'a value of a response enum is removed',
    run: 'second',
    change: (doc) => {
      const authType = at(doc, 'components', 'schemas', 'Me', 'properties', 'auth_type');
      if (!(authType.enum as string[]).includes('oauth_token')) throw new Error('Me.auth_type no longer has oauth_token');
      authType.enum = (authType.enum as string[]).filter((value) => value !== 'oauth_token');
    },
    names: ['GET /me', `cannot remove enum value "oauth_token" from response property 'auth_type'`],
  },
  {
    when: 'a required request field is added',
    run: 'first',
    change: (doc) => {
      const request = at(doc, 'components', 'schemas', 'FormTransferRequest');
      at(request, 'properties').reason = { type: 'string', maxLength: 200 };
      request.required = [...(request.required as string[]), 'reason'];
    },
    names: ['POST /forms/{id}/transfer', "cannot add a required request property 'reason'"],
  },
  {
    when: 'the maxLength of a request field is reduced',
    run: 'first',
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
    run: 'second',
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
    run: 'second',
    change: (doc) => {
      const description = at(doc, 'components', 'schemas', 'IntegrationUpdate', 'properties', 'description');
      if (!(description.type as string[]).includes('null')) throw new Error('IntegrationUpdate.description no longer accepts null');
      description.type = 'string';
    },
    names: ['PATCH /integrations/{id}', "expected request body property 'description' not to be narrowed"],
  },
  {
    when: 'a property is removed from a webhook payload',
    run: 'second',
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

/**
 * One gate run for several changes: the baseline with each of them made, checked once (a run costs seconds, most of
 * them Optic starting). The changes of one run touch different operations, and each test looks for its own change's
 * names, so a test still fails when its change goes unreported. What each change returned is kept, in order.
 */
const sharedRuns = new Map<string, Promise<{ code: number | null; output: string; computed: unknown[] }>>();
function sharedRun(name: string, changes: Array<(doc: Doc) => unknown>) {
  let run = sharedRuns.get(name);
  if (!run) {
    const doc = released();
    const computed = changes.map((change) => change(doc));
    run = runGate(doc).then((result) => ({ ...result, computed }));
    sharedRuns.set(name, run);
  }
  return run;
}

/** Sets the role every security requirement of the operation names; returns the requirement before and after. */
const setRole = (doc: Doc, pathName: string, method: string, role: string) => {
  const operation = at(doc, 'paths', pathName, method);
  const before = structuredClone(operation.security) as Acknowledgement['before'];
  operation.security = before.map((requirement) => Object.fromEntries(Object.keys(requirement).map((scheme) => [scheme, [role]])));
  return { before, after: operation.security as Acknowledgement['after'] };
};

const unreviewedSecurity = [
  { when: 'loosened (read on a delete)', path: '/submissions/{id}', method: 'delete', operationId: 'deleteSubmission', role: 'read' },
  { when: 'tightened (read_write on a list)', path: '/forms', method: 'get', operationId: 'listForms', role: 'read_write' },
];

/** Additions v1 allows, made together in one run. */
const additions: Array<(doc: Doc) => void> = [
  (doc) => {
    (at(doc, 'paths', '/forms', 'get').parameters as Doc[]).push({
      name: 'name_contains',
      in: 'query',
      required: false,
      description: 'Only forms whose name contains this text.',
      schema: { type: 'string', minLength: 1, maxLength: 200 },
    });
  },
  (doc) => {
    const getForm = at(doc, 'paths', '/forms/{id}', 'get');
    at(doc, 'paths')['/forms/{id}/archive'] = {
      parameters: at(doc, 'paths', '/forms/{id}').parameters,
      post: { ...getForm, operationId: 'archiveForm', summary: 'Archive a form' },
    };
  },
];

describe.concurrent('breaking-change gate', () => {
  it.for(breakingChanges)(
    'when $when, then the gate fails and names the change',
    { timeout: gateTimeout },
    async (breaking, { expect }) => {
      const together = breakingChanges.filter((other) => other.run === breaking.run);
      const { code, output, computed } = await sharedRun(
        breaking.run,
        together.map((other) => other.change),
      );
      expect(code, output).not.toBe(0);
      const index = together.findIndex((other) => other.when === breaking.when);
      const names = [...breaking.names, ...((computed[index] as string[] | undefined) ?? [])];
      for (const name of names) expect(output).toContain(name);
      // The run fails because of the other changes too: this change must be one of its errors (Optic marks a failed
      // check `x [rule] message`), not a message printed beside them.
      const errors = output.split('\n').filter((line) => line.trim().startsWith('x ['));
      expect(
        names.some((name) => errors.some((line) => line.includes(name))),
        output,
      ).toBe(true);
      expect(output).toContain('Breaking change against the v1 baseline');
    },
  );

  it.for(unreviewedSecurity)(
    "when an operation's security requirement is $when without acknowledgement, then the gate fails and names it",
    { timeout: gateTimeout },
    async ({ path: pathName, method, operationId, role }, { expect }) => {
      const { code, output } = await sharedRun(
        'unreviewed security',
        unreviewedSecurity.map((change) => (doc: Doc) => setRole(doc, change.path, change.method, change.role)),
      );
      expect(code, output).not.toBe(0);
      expect(output).toContain(`${method.toUpperCase()} ${pathName} (${operationId}): security requirement changed, not acknowledged`);
      expect(output).toContain(`after:  apiKey: ${role} | oauth2: ${role}`);
      expect(output).toMatch(new RegExp(`Security requirement changed without review: [^\\n]*\\b${operationId}\\b`));
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
      const { code, output } = await sharedRun('additions', additions);
      expect(code, output).toBe(0);
      expect(output).toContain('query parameter name_contains: added');
      expect(output).toContain('No breaking change against the v1 baseline.');
    },
    gateTimeout,
  );

  it(
    'when an operation is added, then the gate passes',
    async ({ expect }) => {
      const { code, output } = await sharedRun('additions', additions);
      expect(code, output).toBe(0);
      expect(output).toContain('POST /forms/{id}/archive: added');
    },
    gateTimeout,
  );
});
