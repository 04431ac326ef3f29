import { describe, expect, it } from 'vitest';
import { loadContract } from '../../src/http/contract-document.js';

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
});
