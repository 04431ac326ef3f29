import { describe, expect, it } from 'vitest';
import { takesIdempotencyKey } from '../../src/client/idempotency-key.js';
import type { Scope } from '../../src/contract.js';
import {
  contractOf,
  loadContract,
  loadOrBundleContract,
  matchOperation,
  type Operation,
  operationRouter,
  pathPattern,
} from '../../src/http/contract-document.js';
import type { OperationId } from '../../src/http/handlers/types.js';

const contract = loadContract();
const operation = (id: string) => contract.operations.find((candidate) => candidate.operationId === id)!;

type Access = Scope | 'any key' | 'publishable key' | 'public';

/**
 * Who may call each operation, written out here on purpose rather than read from the document: the server
 * enforces whatever the document says, so a scope loosened in the document by mistake (`read` on a delete)
 * would pass every test that reads its expectation from the same document. Changing a row here is a
 * security review; so is an entry in openapi/baseline/security-changes.yaml, which the breaking-change gate reads.
 */
const minimumAccess: Record<OperationId, Access> = {
  listForms: 'read',
  createForm: 'read_write',
  getForm: 'read',
  updateForm: 'read_write',
  deleteForm: 'read_write',
  listFormVersions: 'read',
  getFormVersion: 'read',
  restoreFormVersion: 'read_write',
  setFormLogo: 'read_write',
  deleteFormLogo: 'read_write',
  transferForm: 'admin',
  listTransfers: 'admin',
  getTransfer: 'admin',
  acceptTransfer: 'admin',
  declineTransfer: 'admin',
  cancelTransfer: 'admin',
  listFolders: 'read',
  createFolder: 'read_write',
  getFolder: 'read',
  updateFolder: 'read_write',
  deleteFolder: 'read_write',
  listSubmissions: 'read',
  exportSubmissions: 'read',
  createSubmission: 'read_write',
  getSubmission: 'read',
  updateSubmission: 'read_write',
  deleteSubmission: 'read_write',
  rescoreSubmission: 'read_write',
  eraseSubmissions: 'admin',
  rescoreForm: 'read_write',
  getRescoreJob: 'read',
  getAnalytics: 'read',
  getMe: 'any key',
  listApiKeys: 'admin',
  createApiKey: 'admin',
  getApiKey: 'admin',
  revokeApiKey: 'admin',
  listPublishableKeys: 'admin',
  createPublishableKey: 'admin',
  getPublishableKey: 'admin',
  updatePublishableKey: 'admin',
  revokePublishableKey: 'admin',
  getPublicForm: 'publishable key',
  createPublicSubmission: 'publishable key',
  updatePublicSubmission: 'publishable key',
  createPublicChallenge: 'publishable key',
  listAuditEvents: 'admin',
  getUsage: 'admin',
  listMembers: 'admin',
  removeMember: 'admin',
  listInvites: 'admin',
  createInvite: 'admin',
  revokeInvite: 'admin',
  resendInvite: 'admin',
  listIntegrations: 'read',
  createIntegration: 'read_write',
  getIntegration: 'read',
  updateIntegration: 'read_write',
  deleteIntegration: 'read_write',
  dispatchIntegration: 'read_write',
  listIntegrationLogs: 'read',
  rotateIntegrationSecret: 'read_write',
  listEvents: 'read',
  getEvent: 'read',
  resetTestData: 'admin',
  createOAuthToken: 'public',
  revokeOAuthToken: 'public',
};

describe('what the server reads from the document', () => {
  it('when the document declares who may call each operation, then it is exactly the reviewed table', () => {
    const declared = Object.fromEntries(
      contract.operations.map(({ operationId, authenticated, publishable, minScope }) => [
        operationId,
        authenticated ? (publishable ? 'publishable key' : (minScope ?? 'any key')) : 'public',
      ]),
    );
    expect(declared).toEqual(minimumAccess);
  });

  it('when an operation lists a role in its security requirement, then that is its minimum scope', () => {
    expect(operation('listForms').minScope).toBe('read');
    expect(operation('createForm').minScope).toBe('read_write');
    expect(operation('createApiKey').minScope).toBe('admin');
    expect(operation('getMe').minScope).toBeNull();
    expect(operation('createOAuthToken').authenticated).toBe(false);
  });

  it('when a path parameter is an integer in the document, then it is passed to the handler as a number', () => {
    expect([...operation('getFormVersion').integerPathParams]).toEqual(['version']);
    expect(
      contract.operations.filter((candidate) => candidate.integerPathParams.size > 0).map((candidate) => candidate.operationId),
    ).toEqual(['getFormVersion', 'restoreFormVersion']);
  });

  it('when an operation declares the Idempotency-Key header, then the server replays it, and so does the typed client', () => {
    const replayed = contract.operations.filter((operation) => operation.acceptsIdempotencyKey).map((operation) => operation.operationId);
    expect(
      replayed.filter((id) => !contract.operations.find((operation) => operation.operationId === id && operation.method === 'post')),
    ).toEqual(['updateSubmission', 'updatePublicSubmission']);
    for (const operation of contract.operations) {
      const url = `https://api.form-funnel.example/v1${operation.path.replace(/\{[^}]+\}/g, 'x_1')}`;
      expect(takesIdempotencyKey(new Request(url, { method: operation.method.toUpperCase() })), operation.operationId).toBe(
        operation.acceptsIdempotencyKey,
      );
    }
  });

  it('when an operation takes nothing but its URL, then it is marked so (its passed checks are remembered)', () => {
    expect(operation('getForm').takesOnlyUrlParameters).toBe(true);
    expect(operation('getFormVersion').takesOnlyUrlParameters).toBe(true);
    expect(operation('listForms').takesOnlyUrlParameters).toBe(true); // query parameters
    expect(operation('listSubmissions').takesOnlyUrlParameters).toBe(true);
    expect(operation('deleteForm').takesOnlyUrlParameters).toBe(false); // If-Match
    expect(operation('createForm').takesOnlyUrlParameters).toBe(false); // a body
    expect(operation('restoreFormVersion').takesOnlyUrlParameters).toBe(false); // Idempotency-Key
    expect(operation('listForms').takesQueryParameters).toBe(true);
    expect(operation('getForm').takesQueryParameters).toBe(false);
    // If-None-Match: the header's value is part of what a remembered verdict is for.
    expect(operation('getForm').verdictHeaders).toEqual(['if-none-match']);
  });

  it('when scopes are compared, then their order is the Scope enum of the document', () => {
    expect(contract.scopeOrder).toEqual(['read', 'read_write', 'admin']);
  });

  it('when an operation takes a body, then the media types it is parsed in are the ones its requestBody names', () => {
    expect(operation('createForm')).toMatchObject({ requestMediaTypes: ['application/json'], rawBody: false, maxBodyBytes: 1_048_576 });
    expect(operation('createOAuthToken')).toMatchObject({ requestMediaTypes: ['application/x-www-form-urlencoded'], rawBody: false });
    expect(operation('listForms')).toMatchObject({ requestMediaTypes: [], rawBody: false });
  });

  it('when an operation takes a file, then it takes each of its media types as bytes, up to the schemas’ maxLength', () => {
    expect(operation('setFormLogo')).toMatchObject({
      method: 'put',
      requestMediaTypes: ['image/png', 'image/jpeg', 'image/webp'],
      rawBody: true,
      maxBodyBytes: 262_144,
    });
  });

  it('when a body mixes JSON with another media type, or a file body has no maxLength, then the document is refused', () => {
    const withBody = (content: Record<string, unknown>, method = 'post') => {
      const document = structuredClone(contract.document);
      document.paths['/forms/{id}/logo'] = { [method]: { operationId: 'setFormLogo', requestBody: { content }, responses: {} } };
      return () => contractOf(document);
    };
    const image = { schema: { type: 'string', maxLength: 10 } };
    expect(withBody({ 'application/json': { schema: {} }, 'image/png': image })).toThrow(/only media type/);
    expect(withBody({ 'image/png': { schema: { type: 'string' } } })).toThrow(/must be a string with a maxLength/);
    expect(withBody({ 'image/png': image, 'image/webp': { schema: { type: 'string', maxLength: 11 } } })).toThrow(/one maxLength/);
    expect(withBody({ 'application/json': { schema: {} } }, 'put')).toThrow(/PUT is not used by this API for JSON/);
    const upload = withBody({ 'image/png': image, 'image/webp': image }, 'put')().operations.find(
      (found) => found.path === '/forms/{id}/logo',
    );
    expect(upload).toMatchObject({ requestMediaTypes: ['image/png', 'image/webp'], rawBody: true, maxBodyBytes: 10 });
  });

  it('when npm run bundle has not run, then the server bundles openapi/ itself into the same document', async () => {
    const bundled = await loadOrBundleContract('/nonexistent/openapi.json');
    expect(bundled.document).toEqual(contract.document);
    expect(bundled.operations.map((entry) => entry.operationId)).toEqual(contract.operations.map((entry) => entry.operationId));
  });
});

describe('finding the operation of a request', () => {
  const methods = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'];
  const values = ['frm_1', '7', 'export', 'erase', 'forms', '%41b', '%E0%A4%A', 'a.b'];
  /**
   * Every template filled with each value, and the near misses around it: a segment more or less, a trailing
   * slash, another first segment.
   */
  const pathsAround = (templates: readonly string[]) => [
    ...new Set([
      '',
      '/',
      '//',
      '/nothing',
      ...templates.flatMap((template) =>
        values.flatMap((value) => {
          const path = template.replace(/\{[^}]+\}/g, value);
          const [, first = '', ...rest] = path.split('/');
          return [
            path,
            `${path}/`,
            `${path}/x`,
            path.slice(0, path.lastIndexOf('/')),
            `/${first.toUpperCase()}/${rest.join('/')}`,
            `/x${path}`,
          ];
        }),
      ),
    ]),
  ];
  const expectSameAnswers = (operations: readonly Operation[]) => {
    const route = operationRouter(operations);
    const paths = pathsAround(operations.map((candidate) => candidate.path));
    for (const path of paths) {
      for (const method of methods) expect(route(method, path), `${method} ${path}`).toEqual(matchOperation(operations, method, path));
    }
    return paths.length;
  };
  const operationAt = (method: Operation['method'], path: string, operationId: string) =>
    ({
      operationId,
      method,
      path,
      pattern: pathPattern(path),
      pathParamNames: [...path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1]!),
    }) as unknown as Operation;

  it('when the router looks only where a path could match, then it answers every path as trying every operation does', () => {
    expect(expectSameAnswers(contract.operations)).toBeGreaterThan(500);
  });

  it('when a literal and a template both match, then the literal wins; a known path with another method is 405', () => {
    const route = operationRouter(contract.operations);
    expect(route('GET', '/submissions/export')).toMatchObject({ operation: { operationId: 'exportSubmissions' }, params: [] });
    expect(route('GET', '/submissions/sub_1')).toMatchObject({ operation: { operationId: 'getSubmission' }, params: ['sub_1'] });
    expect(route('DELETE', '/submissions/export')).toEqual({ allowed: ['GET'] });
    expect(route('GET', '/forms/frm_1/versions/3')).toMatchObject({ operation: { operationId: 'getFormVersion' }, params: ['frm_1', '3'] });
    expect(route('GET', '/forms/frm%5F1')).toMatchObject({ operation: { operationId: 'getForm' }, params: ['frm_1'] });
    expect(route('GET', '/forms/%E0%A4%A')).toMatchObject({ operation: { operationId: 'getForm' }, params: ['%E0%A4%A'] });
    expect(route('GET', '/forms/frm_1/')).toBeUndefined();
    expect(route('GET', '/nothing')).toBeUndefined();
  });

  it('when a path starts with a template or an unusual literal, then its operations are still found, in the document order', () => {
    const operations = [
      operationAt('get', '/{tenant}/forms', 'tenantForms'),
      operationAt('get', '/forms/{id}', 'getForm'),
      operationAt('post', '/{tenant}/{id}', 'tenantPost'),
      operationAt('delete', '/forms/{id}', 'deleteForm'),
      operationAt('get', '/a.b/{id}', 'dotted'),
      operationAt('patch', '/{tenant}/forms', 'tenantFormsPatch'),
      operationAt('get', '/v{version}/x', 'versioned'),
    ];
    expectSameAnswers(operations);
    const route = operationRouter(operations);
    expect(route('GET', '/acme/forms')).toMatchObject({ operation: { operationId: 'tenantForms' }, params: ['acme'] });
    expect(route('POST', '/acme/forms')).toEqual({ allowed: ['GET', 'PATCH'] });
    // A dot in a literal is a dot: it neither stands for another character nor spans a slash.
    expect(route('GET', '/a.b/7')).toMatchObject({ operation: { operationId: 'dotted' }, params: ['7'] });
    // (Two segments: only the template-first POST matches, so GET is told its methods.)
    expect(route('GET', '/axb/7')).toEqual({ allowed: ['POST'] });
    expect(route('GET', '/a/b/7')).toBeUndefined();
    expect(route('GET', '/v2/x')).toMatchObject({ operation: { operationId: 'versioned' }, params: ['2'] });
    // Both match with one template each: the earlier in the document wins, as it does when every operation is tried.
    expect(route('GET', '/forms/forms')).toMatchObject({ operation: { operationId: 'tenantForms' } });
  });
});
