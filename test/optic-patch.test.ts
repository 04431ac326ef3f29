/**
 * Changes of our own carried in patches/@useoptic+rulesets-base+1.0.9.patch and
 * patches/@useoptic+openapi-utilities+1.0.9.patch, which the breaking-change gate (`npm run breaking`) runs on:
 * Optic builds an operation's facts once per node, side and document instead of once per response and rule, and
 * parses a sourcemap file once instead of once per logged pointer. The gate's own tests
 * (test/contract/breaking*.test.ts) check that its verdicts and reports are unchanged.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
type Facts = Record<string, unknown> | null;
const constructors = require('@useoptic/rulesets-base/build/rule-runner/data-constructors.js') as {
  createOperation(node: object, side: string, spec: object): Facts;
  createResponse(node: object, side: string, spec: object): Facts;
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
