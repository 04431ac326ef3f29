/**
 * Changes of our own carried in patches/@useoptic+rulesets-base+1.0.9.patch,
 * patches/@useoptic+openapi-utilities+1.0.9.patch and patches/@useoptic+json-pointer-helpers+1.0.9.patch, which the
 * breaking-change gate (`npm run breaking`) runs on: Optic builds an operation's facts once per node, side and
 * document instead of once per response and rule, parses a sourcemap file once instead of once per logged pointer,
 * and parses a JSON pointer and compiles a glob once instead of at every append, join and match. The gate's own
 * tests (test/contract/breaking*.test.ts) check that its verdicts and reports are unchanged.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
type Facts = Record<string, unknown> | null;
const constructors = require('@useoptic/rulesets-base/build/rule-runner/data-constructors.js') as {
  createOperation(node: object, side: string, spec: object): Facts;
  createResponse(node: object, side: string, spec: object): Facts;
};
const { jsonPointerHelpers: pointers } = require('@useoptic/json-pointer-helpers') as {
  jsonPointerHelpers: {
    append(pointer: string, ...parts: string[]): string;
    join(leading: string, trailing: string): string;
    decode(pointer: string): string[];
    escape(text: string): string;
    unescape(text: string): string;
    get(value: unknown, pointer: string): unknown;
    matches(pointer: string, pattern: string[]): boolean;
    startsWith(pointer: string, pattern: string[]): boolean;
  };
};
const { sourcemapReader } = require('@useoptic/openapi-utilities') as {
  sourcemapReader(sourcemap: object): { findFile(pointer: string): { astNode: unknown; contents: string } | undefined };
};

const spec = () => ({ paths: { '/forms': { get: { responses: { '200': { description: 'ok' } } } } } });
const responseNode = () => ({
  statusCode: '200',
  before: { location: { jsonPath: '/paths/~1forms/get/responses/200' } },
  bodies: new Map(),
  headers: new Map(),
});
const operationNode = () => ({
  before: { location: { jsonPath: '/paths/~1forms/get' } },
  path: '/forms',
  method: 'get',
  polymorphicSchemas: new Map(),
  request: { bodies: new Map() },
  responses: new Map([['200', responseNode()]]),
  headerParameters: new Map(),
  queryParameters: new Map(),
  pathParameters: new Map(),
  cookieParameters: new Map(),
  // What a response node has too, so that one node can be asked for both kinds of facts.
  bodies: new Map(),
  headers: new Map(),
});

describe('Optic patch: facts kept per node, side and document', () => {
  it('when an operation is built twice from one node and document, then the same facts come back', () => {
    const node = operationNode();
    const document = spec();
    const first = constructors.createOperation(node, 'before', document);
    expect(first).toMatchObject({ path: '/forms', method: 'get', raw: document.paths['/forms'].get });
    expect(constructors.createOperation(node, 'before', document)).toBe(first);
  });

  it('when the document, the side or the node differs, then the facts are built from it, not taken from another', () => {
    const node = operationNode();
    const document = spec();
    const first = constructors.createOperation(node, 'before', document);
    const otherDocument = spec();
    const fromOther = constructors.createOperation(node, 'before', otherDocument);
    expect(fromOther).not.toBe(first);
    expect(fromOther?.raw).toBe(otherDocument.paths['/forms'].get);
    // No 'after' facts on this node: null, not the 'before' facts.
    expect(constructors.createOperation(node, 'after', document)).toBeNull();
    expect(constructors.createOperation(operationNode(), 'before', document)).not.toBe(first);
    // Each constructor keeps its own facts: asked for both kinds of one node and document, each gets its own.
    const shared = operationNode();
    const operationFacts = constructors.createOperation(shared, 'before', document);
    const responseFacts = constructors.createResponse(shared, 'before', document);
    expect(responseFacts).not.toBe(operationFacts);
    expect(responseFacts).toHaveProperty('bodies', []);
    expect(constructors.createOperation(shared, 'before', document)).toBe(operationFacts);
    expect(constructors.createResponse(shared, 'before', document)).toBe(responseFacts);
    expect(constructors.createResponse(responseNode(), 'before', document)).toMatchObject({
      statusCode: '200',
      raw: { description: 'ok' },
    });
  });
});

describe('Optic patch: a sourcemap file parsed once', () => {
  const sourcemap = (contents: string) => ({
    rootFilePath: 'openapi.json',
    files: [{ path: 'openapi.json', index: 0, contents, sha256: '' }],
    refMappings: {},
  });

  it('when two readers are made for one sourcemap, then they share the parse of its file', () => {
    const map = sourcemap('{"paths": {"/forms": {"get": {}}}}');
    const first = sourcemapReader(map).findFile('/paths/~1forms/get');
    expect(first?.astNode).toBeDefined();
    expect(sourcemapReader(map).findFile('/paths/~1forms/get')?.astNode).toBe(first?.astNode);
  });

  it('when a file’s contents change, then the next reader parses the new contents', () => {
    const map = sourcemap('{"paths": {"/forms": {"get": {}}}}');
    expect(sourcemapReader(map).findFile('/paths/~1submissions/get')).toBeUndefined();
    map.files[0]!.contents = '{"paths": {"/submissions": {"get": {}}}}';
    const found = sourcemapReader(map).findFile('/paths/~1submissions/get');
    expect(found?.contents).toBe(map.files[0]!.contents);
    expect(found?.astNode).toBeDefined();
  });
});

describe('Optic patch: JSON pointers parsed once', () => {
  // Optic's own definitions, which the patch must answer exactly as: a pointer's tokens are what follows each `/`,
  // unescaped (`~1` is `/`, `~0` is `~`), and a pointer is compiled from its tokens escaped.
  const escapeToken = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');
  const unescapeToken = (text: string) => text.replace(/~0/g, '~').replace(/~1/g, '/');
  const decode = (pointer: string) => pointer.split('/').slice(1).map(unescapeToken);
  const compile = (tokens: string[]) => (tokens.length > 0 ? `/${tokens.map(escapeToken).join('/')}` : '');
  const pointersToTry = ['', '/', '/paths', '/paths/~1forms~1{id}/get', '/a~0b/~01/~2x/', 'no/leading/slash', '/é/ /~'];
  const partsToTry = ['', 'get', '/forms/{id}', '~', '~1', 'a~0/b'];

  it('when pointers are appended to, joined and decoded, then the answers are those of the unpatched helpers', () => {
    for (const pointer of pointersToTry) {
      expect(pointers.decode(pointer), pointer).toEqual(decode(pointer));
      for (const part of partsToTry) {
        expect(pointers.escape(part), part).toBe(escapeToken(part));
        expect(pointers.unescape(part), part).toBe(unescapeToken(part));
        expect(pointers.append(pointer, part), `${pointer} + ${part}`).toBe(compile([...decode(pointer), part]));
        expect(pointers.append(pointer, part, part)).toBe(compile([...decode(pointer), part, part]));
      }
      expect(pointers.append(pointer)).toBe(compile(decode(pointer)));
      for (const trailing of pointersToTry)
        expect(pointers.join(pointer, trailing), `${pointer} join ${trailing}`).toBe(compile([...decode(pointer), ...decode(trailing)]));
    }
  });

  it('when a decoded pointer is changed by its caller, then the next decoding of that pointer is not', () => {
    const first = pointers.decode('/paths/~1forms/get');
    first.pop();
    first.push('changed');
    expect(pointers.decode('/paths/~1forms/get')).toEqual(['paths', '/forms', 'get']);
    expect(pointers.get({ paths: { '/forms': { get: 1 } } }, '/paths/~1forms/get')).toBe(1);
  });

  it('when pointers are matched against globs, then each answer is the glob’s, however often a glob is used', () => {
    const methods = '{get,post,put,delete,patch,head,options}';
    for (let round = 0; round < 2; round++) {
      expect(pointers.matches('/paths/~1forms/get/parameters', ['paths', '**', methods, 'parameters'])).toBe(true);
      expect(pointers.matches('/paths/~1forms/trace/parameters', ['paths', '**', methods, 'parameters'])).toBe(false);
      expect(pointers.matches('/paths', ['paths'])).toBe(true);
      expect(pointers.matches('/paths/x', ['paths'])).toBe(false);
      expect(pointers.matches('/#comment', ['#comment'])).toBe(false);
      // A glob's `*` stops at `/`, which a decoded token may hold.
      expect(pointers.startsWith('/paths/forms/get', ['paths', '*'])).toBe(true);
      expect(pointers.startsWith('/paths/~1forms/get', ['paths', '*'])).toBe(false);
      expect(pointers.startsWith('/webhooks/x', ['paths'])).toBe(false);
    }
  });
});
