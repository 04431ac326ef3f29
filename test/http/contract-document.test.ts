import { describe, expect, it } from 'vitest';
import { loadContract, loadOrBundleContract } from '../../src/http/contract-document.js';

const contract = loadContract();
const operation = (id: string) => contract.operations.find((candidate) => candidate.operationId === id)!;

describe('what the server reads from the document', () => {
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
    ).toEqual(['getFormVersion']);
  });

  it('when scopes are compared, then their order is the Scope enum of the document', () => {
    expect(contract.scopeOrder).toEqual(['read', 'read_write', 'admin']);
  });

  it('when an operation takes a body, then the media type it is parsed in is the one its requestBody names', () => {
    expect(operation('createForm').requestMediaType).toBe('application/json');
    expect(operation('createOAuthToken').requestMediaType).toBe('application/x-www-form-urlencoded');
    expect(operation('listForms').requestMediaType).toBeNull();
  });

  it('when npm run bundle has not run, then the server bundles openapi/ itself into the same document', async () => {
    const bundled = await loadOrBundleContract('/nonexistent/openapi.json');
    expect(bundled.document).toEqual(contract.document);
    expect(bundled.operations.map((entry) => entry.operationId)).toEqual(contract.operations.map((entry) => entry.operationId));
  });
});
